import type { Tool } from '../catalog/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';
import type { Expectations, Suite, ValueMatcher } from './suite-types.js';

/**
 * What suites exercise of a catalog, with no model: a tool is exercised when some case expects it
 * called (`expect.calls`, a case's or a turn's); a parameter when such an expectation gives its
 * argument (nested ones as `options.seat`, array items as `passengers[]`); an enum value when an
 * argument matcher names it (a plain value, `equals`, `one_of`, `includes`). `not_called` and
 * stubs do not count: they never make the model use the tool.
 */
export interface Coverage {
  tools: { total: number; covered: number; uncovered: string[] };
  parameters: { total: number; covered: number; uncovered: { tool: string; parameter: string }[] };
  enum_values: { total: number; covered: number; uncovered: { tool: string; parameter: string; value: unknown }[] };
}

/** Parameters and their enum values, as paths: `city`, `options.seat`, `passengers[]`. */
export function parameterPaths(schema: unknown, prefix = '', depth = 0, out = new Map<string, unknown[] | undefined>()): Map<string, unknown[] | undefined> {
  if (!isRecord(schema) || depth > 16) return out;
  if (isRecord(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      const path = prefix ? `${prefix}.${name}` : name;
      out.set(path, enumOf(sub));
      parameterPaths(sub, path, depth + 1, out);
    }
  }
  if (isRecord(schema.items) && prefix) {
    const path = `${prefix}[]`;
    if (isRecord(schema.items.properties) || Array.isArray(schema.items.enum)) {
      if (Array.isArray(schema.items.enum)) out.set(path, enumOf(schema.items));
      parameterPaths(schema.items, path, depth + 1, out);
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[key])) for (const alt of schema[key] as unknown[]) parameterPaths(alt, prefix, depth + 1, out);
  return out;
}

function enumOf(schema: unknown): unknown[] | undefined {
  if (!isRecord(schema)) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

/** What a set of expectations touches: tools, `tool → parameter paths`, and `tool\0path → values` named. */
interface Touched {
  tools: Set<string>;
  parameters: Set<string>;
  values: Map<string, Set<string>>;
}

function touch(expectations: Expectations | undefined, seen: Touched, resolveName: (name: string) => string): void {
  for (const call of expectations?.calls ?? []) {
    const tool = resolveName(call.tool);
    seen.tools.add(tool);
    for (const [name, matcher] of Object.entries(call.args ?? {})) walkMatcher(tool, name, matcher, seen, 0);
  }
}

function note(seen: Touched, tool: string, path: string, value: unknown): void {
  const key = `${tool}\u0000${path}`;
  let values = seen.values.get(key);
  if (!values) seen.values.set(key, (values = new Set()));
  values.add(canonicalJson(value));
}

function walkMatcher(tool: string, path: string, matcher: ValueMatcher, seen: Touched, depth: number): void {
  if (depth > 32) return;
  seen.parameters.add(`${tool}\u0000${path}`);
  switch (matcher.kind) {
    case 'literal':
    case 'equals':
      walkValue(tool, path, matcher.value, seen, depth);
      return;
    case 'one_of':
      for (const v of matcher.values) note(seen, tool, path, v);
      return;
    case 'includes':
      walkMatcher(tool, `${path}[]`, matcher.item, seen, depth + 1);
      // An array parameter whose items are an enum: the value counts for the parameter itself too.
      if (matcher.item.kind === 'literal' || matcher.item.kind === 'equals') note(seen, tool, path, matcher.item.value);
      return;
    case 'all':
      for (const m of matcher.matchers) walkMatcher(tool, path, m, seen, depth + 1);
      return;
    case 'object':
      for (const [name, m] of Object.entries(matcher.properties)) walkMatcher(tool, `${path}.${name}`, m, seen, depth + 1);
      return;
    default:
      return;
  }
}

function walkValue(tool: string, path: string, value: unknown, seen: Touched, depth: number): void {
  if (depth > 32) return;
  seen.parameters.add(`${tool}\u0000${path}`);
  if (Array.isArray(value)) {
    for (const item of value) {
      note(seen, tool, path, item);
      walkValue(tool, `${path}[]`, item, seen, depth + 1);
    }
    return;
  }
  if (isRecord(value)) {
    for (const [name, v] of Object.entries(value)) walkValue(tool, `${path}.${name}`, v, seen, depth + 1);
    return;
  }
  note(seen, tool, path, value);
}

/**
 * Coverage of `tools` (the catalog tools the suites can reach) by `suites`. `resolveName` maps an
 * alias a suite uses to the catalog name.
 */
export function suiteCoverage(tools: readonly Tool[], suites: readonly Suite[], resolveName: (name: string) => string = (n) => n): Coverage {
  const seen: Touched = { tools: new Set(), parameters: new Set(), values: new Map() };
  for (const suite of suites) {
    for (const testCase of suite.cases) {
      touch(testCase.expect, seen, resolveName);
      for (const turn of testCase.turns) touch(turn.expect, seen, resolveName);
    }
  }
  const coverage: Coverage = { tools: { total: 0, covered: 0, uncovered: [] }, parameters: { total: 0, covered: 0, uncovered: [] }, enum_values: { total: 0, covered: 0, uncovered: [] } };
  for (const tool of tools) {
    coverage.tools.total++;
    if (seen.tools.has(tool.name)) coverage.tools.covered++;
    else coverage.tools.uncovered.push(tool.name);
    for (const [path, values] of parameterPaths(tool.parameters)) {
      coverage.parameters.total++;
      if (seen.parameters.has(`${tool.name}\u0000${path}`)) coverage.parameters.covered++;
      else coverage.parameters.uncovered.push({ tool: tool.name, parameter: path });
      if (!values) continue;
      const named = seen.values.get(`${tool.name}\u0000${path}`);
      for (const value of values) {
        coverage.enum_values.total++;
        if (named?.has(canonicalJson(value))) coverage.enum_values.covered++;
        else coverage.enum_values.uncovered.push({ tool: tool.name, parameter: path, value });
      }
    }
  }
  return coverage;
}

/** Coverage as JUnit properties (one <testsuite name="coverage">): totals, then each thing no case exercises. */
export function coverageProperties(coverage: Coverage): { name: string; value: string }[] {
  const props = [
    { name: 'coverage.tools', value: `${coverage.tools.covered}/${coverage.tools.total}` },
    { name: 'coverage.parameters', value: `${coverage.parameters.covered}/${coverage.parameters.total}` },
    { name: 'coverage.enum_values', value: `${coverage.enum_values.covered}/${coverage.enum_values.total}` },
  ];
  for (const t of coverage.tools.uncovered) props.push({ name: 'uncovered.tool', value: t });
  for (const p of coverage.parameters.uncovered) props.push({ name: 'uncovered.parameter', value: `${p.tool}.${p.parameter}` });
  for (const e of coverage.enum_values.uncovered) props.push({ name: 'uncovered.enum_value', value: `${e.tool}.${e.parameter}=${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)}` });
  return props;
}
