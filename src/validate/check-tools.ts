import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { linearRegExp } from '../shared/linear-regexp.js';
import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import { closest } from '../shared/did-you-mean.js';
import { isRecord } from '../shared/is-record.js';
import type { Reporter } from '../catalog/reporter.js';
import { dottedPath } from '../catalog/reporter.js';
import { ServerToolReporter } from '../catalog/server-tool-reporter.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import { META_TOOL_NAMES, type ExecHandler, type JsonSchema, type Tool } from '../catalog/types.js';
import { nameProblems, providerSafeName } from '../providers/tool-names.js';
import { checkParameters, reportStrictComplaints } from './check-parameters.js';
import { decomposeSchema, pathFromShape, schemaShape } from './schema-shape.js';
import { runStrictJob, type ExampleError, type StrictJob, type StrictResult } from './strict-compile.js';
import CLEAN_SHAPES from '../generated/clean-shapes.js';

/** Below this a description rarely tells a model when to use the tool. */
export const MIN_DESCRIPTION_CHARS = 20;
export const MIN_DESCRIPTION_WORDS = 4;
/** Above this a description costs noticeable tokens on every request (about 500 tokens). */
export const MAX_DESCRIPTION_CHARS = 2000;

/**
 * Checks every tool and agent entry of a loaded catalog. `cache` remembers what the schema
 * compiles found, by the schemas and examples compiled (the manager's store on disk).
 */
export function checkTools(loaded: LoadedCatalog, cache?: ParseCache): void {
  const seen = new Map<string, Tool>();
  const jobs: StrictJob[] = [];
  const uses: { job: number; schema: JsonSchema; renamed: boolean | undefined; reporter: Reporter; base: string[]; explained: ReadonlySet<string>; path: string[] }[] = [];
  const jobsByShape = new Map<string, number>();
  for (const tool of loaded.catalog.tools) {
    if (tool.source.kind === 'meta') continue;
    const reporter = reporterFor(loaded, tool);
    if (!reporter) continue;
    const base = segmentsOf(tool.source.pointer);
    const isAgent = tool.source.kind === 'agent';
    const at = (...path: (string | number)[]) => pointerOf([...base, ...path]);
    const namePointer = isAgent ? tool.source.pointer : at('name');
    const namePart = isAgent ? 'key' : 'value';

    const earlier = seen.get(tool.name);
    if (earlier && (earlier.source.kind === 'catalog' || earlier.source.kind === 'agent')) {
      const span = loaded.sources.get(earlier.source.file)?.locate(earlier.source.kind === 'agent' ? earlier.source.pointer : earlier.source.pointer + '/name', earlier.source.kind === 'agent' ? 'key' : 'value');
      reporter.report('TM0201', namePointer, `the name "${tool.name}" is already used at ${earlier.source.file}:${span?.line ?? 0}:${span?.column ?? 0}`, {
        part: namePart,
        hint: 'tool names must be unique across the catalog and every file it includes',
      });
    } else {
      seen.set(tool.name, tool);
    }
    if ((META_TOOL_NAMES as readonly string[]).includes(tool.name)) {
      reporter.report('TM0209', namePointer, `"${tool.name}" is the name of a toolman meta-tool, offered when tools are deferred`, {
        part: namePart,
        hint: 'choose another name',
      });
    }
    const names = nameProblems(tool.name);
    if (names.openaiOrAnthropic) {
      reporter.report('TM0202', namePointer, `the name "${tool.name}" is not accepted by OpenAI or Anthropic (^[a-zA-Z0-9_-]{1,64}$)`, {
        part: namePart,
        // Never suggest a name another tool (or alias) already has.
        hint: `use e.g. "${providerSafeName(tool.name, new Set([...META_TOOL_NAMES, ...loaded.catalog.tools.flatMap((t) => (t === tool ? [] : [t.name, ...t.aliases]))]))}" (what toolman import would choose) and keep the old name under aliases`,
      });
    } else if (names.gemini) {
      reporter.report('TM0203', namePointer, `Gemini needs names that start with a letter or "_"; "${tool.name}" will be sent as "${names.geminiSentAs}"`, { part: namePart });
    }

    checkDescription(tool, reporter, at, isAgent || misspelledDescription(loaded, tool));
    if (tool.exclusive && tool.deferLoading) {
      reporter.report('TM0501', at('defer_loading'), 'an exclusive tool cannot be deferred: when forced it must be the one tool offered', {
        hint: 'remove defer_loading, or drop exclusive',
      });
    }
    if (tool.takesControl && tool.mode === 'background') {
      reporter.report('TM0502', at('mode'), 'a tool that takes control cannot run in the background: its result must go to the user at once', {
        hint: 'use mode: direct, or drop takes_control',
      });
    }
    if (tool.effect === 'destructive' && tool.confirm === 'never') {
      // Said where `confirm: never` was written: the tool, or the last override that set it.
      const setBy = [...(tool.overriddenBy ?? [])].reverse().find((o) => o.fields.includes('confirm') || o.fields.includes('effect'));
      const target = setBy ? loaded.reporters.get(setBy.file) : undefined;
      const where = setBy && target ? { reporter: target, pointer: `${setBy.pointer}/set/${setBy.fields.includes('confirm') ? 'confirm' : 'effect'}` } : { reporter, pointer: at('confirm') };
      where.reporter.report('TM0503', where.pointer, `${setBy && target ? `${tool.name}: ` : ''}a destructive tool set to confirm: never runs without asking the user`, {
        hint: 'use confirm: auto (destructive tools ask) unless a person approves these calls some other way',
      });
    }

    if (isAgent) {
      const url = loaded.catalog.agents.get(tool.name)?.a2a?.url;
      if (typeof url === 'string' && !URL.canParse(url.replace(/\$\{env:[^}]*\}/g, 'x'))) {
        reporter.report('TM0704', at('a2a', 'url'), `"${url}" is not a URL`, { hint: 'write the agent\'s base URL, e.g. http://127.0.0.1:4100' });
      }
    }
    const { compilable, explained } = isAgent ? { compilable: undefined, explained: new Set<string>() } : checkParameters(tool.parameters, [...base, 'parameters'], reporter);
    if (compilable && tool.examples.length > 0) {
      // Examples are validated against the real schema, so it is compiled as it is.
      jobs.push({ id: jobs.length, schema: compilable, examples: tool.examples });
      uses.push({ job: jobs.length - 1, schema: compilable, renamed: undefined, reporter, base: [...base, 'parameters'], explained, path: [] });
    } else if (compilable) {
      // Strict complaints depend only on each node's shape: compile each distinct piece once.
      const pieces = decomposeSchema(compilable);
      for (const piece of pieces ?? [{ path: [], node: compilable }]) {
        // A decomposed schema has no references (decomposeSchema refuses those).
        const { shape, renamed } = pieces ? schemaShape(piece.node, false) : schemaShape(piece.node);
        const key = JSON.stringify(shape);
        // Shapes the build found clean need no compile: they have nothing to report.
        if (CLEAN_SHAPES.has(key)) continue;
        let job = jobsByShape.get(key);
        if (job === undefined) {
          job = jobs.length;
          jobs.push({ id: job, schema: shape, examples: [] });
          jobsByShape.set(key, job);
        }
        uses.push({ job, schema: piece.node, renamed, reporter, base: [...base, 'parameters', ...piece.path], explained, path: piece.path });
      }
    }
    checkHandler(tool, reporter, at, dirname(loaded.sources.get(tool.source.file)?.absolutePath ?? tool.source.file));
  }

  const results = cachedResults(jobs, cache);
  for (const use of uses) {
    const result = results[use.job]!;
    const mapPath = use.renamed === undefined ? undefined : (path: string[]) => pathFromShape(use.schema, path, use.renamed!);
    // Paths in a piece are relative to where the piece sits in the whole schema.
    const prefix = use.path.join('/');
    const explained = prefix ? new Set([...use.explained].filter((p) => p === prefix || p.startsWith(prefix + '/')).map((p) => p.slice(prefix.length + 1))) : use.explained;
    reportStrictComplaints(result.complaints, use.schema, use.base, use.reporter, mapPath, explained);
    for (const failed of result.examples) reportExample(failed.index, failed.errors, use.reporter, (...p) => pointerOf([...use.base.slice(0, -1), ...p]));
  }
}

/** Where findings about a tool go: its file's reporter; for an MCP server's tool, its server's entry. */
export function reporterFor(loaded: LoadedCatalog, tool: Tool, reporters: ReadonlyMap<string, Reporter> = loaded.reporters): Reporter | undefined {
  if (tool.source.kind === 'meta') return undefined;
  const reporter = reporters.get(tool.source.file);
  return reporter && tool.source.kind === 'mcp' ? new ServerToolReporter(reporter, tool as Tool & { source: { kind: 'mcp' } }) : reporter;
}

/**
 * Whether the tool's entry has a key that is a misspelt `description` (TM0101 names it, with the
 * fix): then "no description" would be the same mistake reported twice.
 */
function misspelledDescription(loaded: LoadedCatalog, tool: Tool): boolean {
  if (tool.source.kind !== 'catalog' || tool.description !== undefined) return false;
  const entry = valueAt(loaded.sources.get(tool.source.file)?.data, segmentsOf(tool.source.pointer));
  return isRecord(entry) && Object.keys(entry).some((key) => key !== 'description' && closest(key, ['description']) === 'description');
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const segment of segments) node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  return node;
}

function checkDescription(tool: Tool, reporter: Reporter, at: (...p: (string | number)[]) => string, skipMissing: boolean): void {
  const text = tool.description?.trim() ?? '';
  if (text === '') {
    if (!skipMissing) {
      reporter.report('TM0204', tool.description === undefined ? at() : at('description'), 'no description: the model sees only the name and has to guess when to use it', {
        hint: 'say what the tool does, when to use it (and when not), and what it returns',
      });
    }
  } else {
    if (text.length < MIN_DESCRIPTION_CHARS || wordsUpTo(text, MIN_DESCRIPTION_WORDS) < MIN_DESCRIPTION_WORDS) {
      const words = text.split(/\s+/).length;
      reporter.report('TM0205', at('description'), `the description is ${words} word${words === 1 ? '' : 's'} (${text.length} characters); too short to tell a model when to use the tool`, {
        hint: 'say what the tool does, when to use it (and when not), and what it returns',
      });
    } else if (text.length > MAX_DESCRIPTION_CHARS) {
      reporter.report('TM0206', at('description'), `the description is ${text.length} characters (over ${MAX_DESCRIPTION_CHARS}); it is sent with every request`, {
        hint: 'move reference material to `docs`, which is loaded on demand',
      });
    }
  }
  if (tool.deferLoading && !tool.summary && tool.keywords.length === 0) {
    reporter.report('TM0207', at('defer_loading'), 'deferred, but has neither `summary` nor `keywords`: tool search can only find it by name and description', {
      hint: 'add a one-line summary and a few keywords users would say',
    });
  }
}

/** How many words `text` has, counting no further than `limit` (long descriptions are common). */
function wordsUpTo(text: string, limit: number): number {
  const word = /\S+/g;
  let count = 0;
  while (count < limit && word.exec(text)) count++;
  return count;
}

function reportExample(i: number, errors: ExampleError[], reporter: Reporter, at: (...p: (string | number)[]) => string): void {
  for (const error of errors) {
    const path = error.instancePath.split('/').slice(1);
    let message: string;
    if (error.keyword === 'required') {
      message = `examples[${i}] is missing required argument "${(error.params as { missingProperty: string }).missingProperty}"`;
    } else if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      path.push(extra);
      message = `examples[${i}] has argument "${extra}", which parameters does not allow`;
    } else {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
      message = `examples[${i}].${dottedPath(path) || '(root)'} ${error.message ?? 'is invalid'}${allowed ? ': ' + allowed.map((v) => JSON.stringify(v)).join(', ') : ''}`;
    }
    reporter.report('TM0308', at('examples', i, ...path), message, { part: error.keyword === 'additionalProperties' ? 'key' : 'value' });
  }
}

const TEMPLATE = /\{\{\s*([^}]+?)\s*\}\}/g;

function checkHandler(tool: Tool, reporter: Reporter, at: (...p: (string | number)[]) => string, catalogDir: string): void {
  const handler = tool.handler;
  if (!handler) return;
  if (tool.native) {
    reporter.report('TM0706', at('handler'), 'a provider-native tool is run by the provider; this handler would never run', { hint: 'remove the handler, or drop `native` to make it a normal tool' });
    return;
  }
  const properties = Object.keys((tool.parameters.properties as Record<string, unknown> | undefined) ?? {});
  const checkTemplates = (text: string, pointer: string) => {
    for (const match of text.matchAll(TEMPLATE)) {
      const name = match[1]!;
      const param = name === 'args' ? undefined : name.replace(/^args\./, '').split('.')[0]!;
      if (param !== undefined && !properties.includes(param)) {
        reporter.report('TM0705', pointer, `template {{${name}}} names no parameter of the tool`, {
          hint: properties.length ? `parameters: ${properties.join(', ')}` : 'the tool has no parameters',
        });
      }
    }
  };
  const walkStrings = (value: unknown, path: (string | number)[], visit: (text: string, pointer: string) => void): void => {
    if (typeof value === 'string') visit(value, at(...path));
    else if (Array.isArray(value)) value.forEach((v, i) => walkStrings(v, [...path, i], visit));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walkStrings(v, [...path, k], visit);
  };
  switch (handler.kind) {
    case 'module':
      if (!existsSync(handler.file)) {
        reporter.report('TM0703', at('handler', 'module'), `module file ${JSON.stringify(handler.spec.split('#')[0])} does not exist (looked for ${handler.file})`, { hint: 'module paths are relative to the catalog file' });
      } else if (outside(catalogDir, handler.file)) {
        reporter.report('TM0711', at('handler', 'module'), `the module ${JSON.stringify(handler.spec.split('#')[0])} is outside the catalog's folder`, {
          hint: 'toolman runs it with the catalog\'s trust; make sure that is meant (or move it next to the catalog)',
        });
      }
      return;
    case 'http': {
      const url = handler.http.url.replace(TEMPLATE, 'x').replace(/\$\{env:[^}]*\}/g, 'x');
      // A URL whose base comes from the environment or an argument can only be judged at run time.
      const dynamicBase = /^\s*(\$\{env:|\{\{)/.test(handler.http.url);
      if (!dynamicBase && (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
        reporter.report('TM0704', at('handler', 'http', 'url'), `"${handler.http.url}" is not an http(s) URL`, { hint: 'write a full URL such as https://api.example.com/items/{{id}}' });
      }
      walkStrings(handler.http, ['handler', 'http'], checkTemplates);
      return;
    }
    case 'exec':
      walkStrings(handler.exec.argv, ['handler', 'exec', 'argv'], checkTemplates);
      checkExecArguments(handler.exec, reporter, at);
      if (handler.exec.cwd !== undefined && outside(catalogDir, resolve(catalogDir, handler.exec.cwd))) {
        reporter.report('TM0711', at('handler', 'exec', 'cwd'), `exec.cwd ${JSON.stringify(handler.exec.cwd)} is outside the catalog's folder`, {
          hint: 'the program runs there with the catalog\'s trust; make sure that is meant',
        });
      }
      return;
    case 'mock':
      handler.cases.forEach((c, i) => {
        walkStrings(c.result, ['handler', 'mock', i, 'result'], checkTemplates);
        if (isRecord(c.when)) checkMatchers(c.when, ['handler', 'mock', i, 'when'], reporter, at);
        // An open object (additionalProperties true or a schema) takes keys it does not declare.
        const open = tool.parameters.additionalProperties !== undefined && tool.parameters.additionalProperties !== false;
        for (const key of isRecord(c.when) && !open ? Object.keys(c.when) : []) {
          if (properties.includes(key)) continue;
          // {$exists: false} on a key the model never sends matches always: still worth a word.
          reporter.report('TM0707', at('handler', 'mock', i, 'when', key), `mock case ${i}: "when" names "${key}", which is not a parameter, so this case never matches the model's calls`, {
            part: 'key',
            hint: properties.length ? `parameters: ${properties.join(', ')}` : 'the tool has no parameters',
          });
        }
      });
      return;
  }
}

/** Whether `path` lies outside `folder` (the catalog's): `..` out of it, or another root. */
function outside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel.startsWith('..') || isAbsolute(rel);
}

/**
 * The program must be the author's, and a value must not become an option: a template in
 * argv[0] is an error (TM0708); one that begins an argument before a literal `--` is a warning
 * (TM0709), since a value like `--output=x` would be read as an option. At run time such values
 * are refused unless the parameter is listed in `allow_options`.
 */
function checkExecArguments(exec: ExecHandler, reporter: Reporter, at: (...p: (string | number)[]) => string): void {
  const allowed = new Set(exec.allow_options ?? []);
  exec.argv.forEach((part, i) => {
    if (i === 0) {
      if (/\{\{/.test(part)) {
        reporter.report('TM0708', at('handler', 'exec', 'argv', 0), `the program (exec.argv[0]) would come from an argument: ${JSON.stringify(part)}`, {
          hint: 'name the program in the catalog; pass what varies as later arguments, or use one tool per program',
        });
      }
      return;
    }
    if (exec.argv.slice(1, i).includes('--')) return;
    const lead = /^\{\{\s*([^}]+?)\s*\}\}/.exec(part);
    if (!lead) return;
    const param = lead[1] === 'args' ? 'args' : lead[1]!.replace(/^args\./, '').split('.')[0]!;
    if (allowed.has(param)) return;
    reporter.report('TM0709', at('handler', 'exec', 'argv', i), `argument ${i} begins with {{${lead[1]}}}: a value starting with "-" would be read by ${exec.argv[0]} as an option, so toolman refuses such values`, {
      hint: `put "--" before it if ${exec.argv[0]} takes one (e.g. [${JSON.stringify(exec.argv[0])}, ..., "--", ${JSON.stringify(part)}]), or list "${param}" in allow_options if it is meant to be an option`,
    });
  });
}

const MATCHERS = new Set(['$regex', '$contains', '$in', '$exists', '$gt', '$gte', '$lt', '$lte', '$ne']);

/** Mock `when` operators: known ones only, and `$regex` patterns RE2 can run. */
function checkMatchers(value: unknown, path: (string | number)[], reporter: Reporter, at: (...p: (string | number)[]) => string): void {
  if (Array.isArray(value)) return value.forEach((v, i) => checkMatchers(v, [...path, i], reporter, at));
  if (!isRecord(value)) return;
  const keys = Object.keys(value);
  const operators = keys.length > 0 && keys.every((k) => k.startsWith('$'));
  for (const [key, sub] of Object.entries(value)) {
    if (operators && !MATCHERS.has(key)) {
      const suggestion = closest(key, [...MATCHERS]);
      reporter.report('TM0710', at(...path, key), `unknown mock matcher "${key}"` + (suggestion ? `; did you mean "${suggestion}"?` : ''), { part: 'key', hint: `matchers: ${[...MATCHERS].join(', ')}` });
      continue;
    }
    if (operators && key === '$regex') {
      if (typeof sub !== 'string') reporter.report('TM0710', at(...path, key), '$regex takes a pattern (a string)');
      else {
        try {
          linearRegExp(sub);
        } catch (error) {
          reporter.report('TM0710', at(...path, key), `$regex ${JSON.stringify(sub)} does not compile: ${error instanceof Error ? error.message : String(error)}`, { hint: 'mock patterns use RE2 syntax: no lookaround, no backreferences' });
        }
      }
      continue;
    }
    checkMatchers(sub, [...path, key], reporter, at);
  }
}

/** The strict compiles' results, from `cache` when it holds these very jobs' (a damaged entry is a miss). */
function cachedResults(jobs: StrictJob[], cache: ParseCache | undefined): StrictResult[] {
  if (!cache || jobs.length === 0) return jobs.map(runStrictJob);
  const key = JSON.stringify(jobs);
  const remembered = cache.get(key);
  if (Array.isArray(remembered) && remembered.length === jobs.length && remembered.every(isStrictResult)) return remembered as StrictResult[];
  const results = jobs.map(runStrictJob);
  cache.set(key, results);
  return results;
}

function isStrictResult(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value.complaints) && value.complaints.every((c) => typeof c === 'string') && Array.isArray(value.examples) && value.examples.every((e) => isRecord(e) && typeof e.index === 'number' && Array.isArray(e.errors));
}
