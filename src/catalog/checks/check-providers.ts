import { pointerOf, segmentsOf } from '../diagnostic.js';
import { walkSchema } from '../json-schema.js';
import type { LoadedCatalog } from '../load-catalog.js';
import type { JsonSchema } from '../types.js';
import { profileNames } from '../../select/resolve-profile.js';
import { selectTools } from '../../select/select-tools.js';

/**
 * Provider limits and schema subsets. Sources (see docs/providers.md):
 * - OpenAI Structured Outputs guide, "Supported schemas": strict mode takes type, properties,
 *   required, additionalProperties:false, items, enum, const, anyOf (not at the root), $ref/$defs,
 *   string pattern/format, number minimum/maximum/exclusive*\/multipleOf, array minItems/maxItems;
 *   at most 5000 properties, 10 levels of nesting and 1000 enum values per schema.
 * - OpenAI Chat Completions API reference: at most 128 functions per request.
 * - Gemini API function calling docs: an OpenAPI 3.0 schema subset, string enums, at most 512
 *   function declarations per request.
 */
export const OPENAI_STRICT_UNSUPPORTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'patternProperties',
  'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'minProperties', 'maxProperties', 'minLength',
  'maxLength', 'contains', 'minContains', 'maxContains', 'uniqueItems', 'prefixItems',
] as const;
export const OPENAI_STRICT_LIMITS = { properties: 5000, nesting: 10, enumValues: 1000 } as const;
export const PROVIDER_TOOL_LIMITS = { openai: 128, gemini: 512 } as const;

export function checkProviders(loaded: LoadedCatalog, rootFile: string | undefined): void {
  for (const tool of loaded.catalog.tools) {
    if (tool.source.kind !== 'catalog') continue;
    const reporter = loaded.reporters.get(tool.source.file);
    if (!reporter) continue;
    const base = [...segmentsOf(tool.source.pointer), 'parameters'];
    const strict = openAiStrictFindings(tool.parameters);
    if (strict.impossible.length) {
      reporter.report('TM0402', pointerOf([...base, ...strict.impossible[0]!.path]), `OpenAI strict mode is impossible (${strict.impossible.map((f) => f.reason).join('; ')}); the tool will be sent with strict: false`);
    } else if (strict.unsupported.size) {
      const [first] = strict.unsupported.values();
      reporter.report('TM0401', pointerOf([...base, ...first!]), `OpenAI strict mode does not support ${[...strict.unsupported.keys()].map((k) => `"${k}"`).join(', ')}; the formatter will move these constraints into the description`, {
        part: 'key',
      });
    }
    for (const finding of geminiFindings(tool.parameters)) {
      reporter.report(finding.code, pointerOf([...base, ...finding.path]), finding.message);
    }
  }

  // Tool counts per request: what each profile sends up front (active tools plus the meta-tool).
  const rootReporter = rootFile ? loaded.reporters.get(rootFile) : undefined;
  for (const name of profileNames(loaded.catalog)) {
    let selection;
    try {
      selection = selectTools(loaded.catalog, { profile: name });
    } catch {
      continue; // unknown extends and cycles are reported by the profile checks
    }
    const sent = selection.active.length + (selection.deferred.length ? 1 : 0);
    const profile = loaded.catalog.profiles.get(name);
    const reporter = profile ? loaded.reporters.get(profile.file) : rootReporter;
    if (!reporter) continue;
    for (const [provider, limit] of Object.entries(PROVIDER_TOOL_LIMITS)) {
      if (sent <= limit) continue;
      reporter.report('TM0405', profile ? profile.pointer : '/tools', `profile ${name} sends ${sent} tools up front; ${provider === 'openai' ? 'OpenAI Chat Completions' : 'Gemini'} takes at most ${limit} per request`, {
        part: 'key',
        subject: '',
        hint: "defer some tools (defer_loading, a profile's defer, or defer: auto) so tool_search loads them on demand",
      });
    }
  }
}

interface StrictFindings {
  unsupported: Map<string, string[]>;
  impossible: { reason: string; path: string[] }[];
}

export function openAiStrictFindings(schema: JsonSchema): StrictFindings {
  const unsupported = new Map<string, string[]>();
  const impossible: StrictFindings['impossible'] = [];
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) impossible.push({ reason: 'the root is a union; it must be one object', path: [] });
  let properties = 0;
  let enumValues = 0;
  let deepest = 0;
  let deepestPath: string[] = [];
  let openMap: string[] | undefined;
  walkSchema(schema, ({ node, path, depth }) => {
    for (const keyword of OPENAI_STRICT_UNSUPPORTED) {
      if (keyword in node && !unsupported.has(keyword)) unsupported.set(keyword, [...path, keyword]);
    }
    const ap = node.additionalProperties;
    if (openMap === undefined && (ap === true || (ap !== null && typeof ap === 'object'))) openMap = [...path, 'additionalProperties'];
    if (node.properties && typeof node.properties === 'object') properties += Object.keys(node.properties).length;
    if (Array.isArray(node.enum)) enumValues += node.enum.length;
    if (depth > deepest) {
      deepest = depth;
      deepestPath = path;
    }
  });
  if (openMap) impossible.push({ reason: 'an object allows arbitrary keys (additionalProperties), but strict mode needs every key declared', path: openMap });
  if (properties > OPENAI_STRICT_LIMITS.properties) impossible.push({ reason: `${properties} properties, over ${OPENAI_STRICT_LIMITS.properties}`, path: [] });
  if (deepest > OPENAI_STRICT_LIMITS.nesting) impossible.push({ reason: `${deepest} levels of nesting, over ${OPENAI_STRICT_LIMITS.nesting}`, path: deepestPath });
  if (enumValues > OPENAI_STRICT_LIMITS.enumValues) impossible.push({ reason: `${enumValues} enum values, over ${OPENAI_STRICT_LIMITS.enumValues}`, path: [] });
  return { unsupported, impossible };
}

interface GeminiFinding {
  code: 'TM0403' | 'TM0404';
  path: string[];
  message: string;
}

export function geminiFindings(schema: JsonSchema): GeminiFinding[] {
  const findings: GeminiFinding[] = [];
  let recursive: string[] | undefined;
  walkSchema(schema, ({ node, path }) => {
    if (Array.isArray(node.enum) && node.enum.length > 0) {
      const kinds = new Set(node.enum.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)));
      const numeric = [...kinds].every((k) => k === 'number');
      if (kinds.size > 1 || (!kinds.has('string') && !numeric)) {
        findings.push({ code: 'TM0404', path: [...path, 'enum'], message: `Gemini enums are strings; this enum mixes ${[...kinds].join(', ')}, so values will be sent as strings and the type is lost` });
      }
    }
    if (recursive === undefined && typeof node.$ref === 'string' && refIsRecursive(schema, node.$ref, path)) recursive = [...path, '$ref'];
  });
  if (recursive) {
    findings.push({ code: 'TM0403', path: recursive, message: `the schema is recursive ($ref ${JSON.stringify(pathValue(schema, recursive))}); Gemini cannot express recursion, so the gemini formatter will reject this tool` });
  }
  return findings;
}

function pathValue(root: unknown, path: string[]): unknown {
  let node = root;
  for (const s of path) node = (node as Record<string, unknown>)?.[s];
  return node;
}

/** A $ref is recursive when its target contains (directly or through other refs) a ref back to itself or to an ancestor of the ref. */
function refIsRecursive(root: JsonSchema, ref: string, refPath: string[]): boolean {
  const target = refTarget(ref);
  if (target === undefined) return false;
  const refPointer = '/' + refPath.join('/');
  if (refPointer === target || refPointer.startsWith(target === '' ? '/' : target + '/') || target === '') return true;
  const visiting = new Set<string>([target]);
  const reaches = (pointer: string): boolean => {
    const node = pointer === '' ? root : pathValue(root, pointer.slice(1).split('/'));
    let hit = false;
    walkSchema(node, ({ node: inner }) => {
      if (hit || typeof inner.$ref !== 'string') return;
      const next = refTarget(inner.$ref);
      if (next === undefined) return;
      if (next === target || refPointer.startsWith(next + '/') || next === '') hit = true;
      else if (!visiting.has(next)) {
        visiting.add(next);
        hit = reaches(next);
      }
    });
    return hit;
  };
  return reaches(target);
}

function refTarget(ref: string): string | undefined {
  if (ref === '#') return '';
  if (!ref.startsWith('#/')) return undefined;
  return ref.slice(1);
}
