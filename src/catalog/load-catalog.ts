import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { reportAliasConflicts } from './alias-conflicts.js';
import { checkCatalogSchema } from './catalog-schema.js';
import type { Diagnostic } from './diagnostic.js';
import { pointerOf } from './diagnostic.js';
import { Reporter } from './reporter.js';
import { looksLikeCatalog, NOT_A_CATALOG_HINT, SourceFile } from './source-file.js';
import {
  DEFAULT_LIMITS,
  type AgentConfig,
  type Catalog,
  type EvaluationDefinition,
  type SummarizeSettings,
  type McpOAuthConfig,
  type McpServerConfig,
  type LintClient,
  type LintSetting,
  type Override,
  type Profile,
  type Tool,
  type ToolDefaults,
} from './types.js';
import { isRecord } from '../shared/is-record.js';
import { applyOverrides, buildTool } from './build-tool.js';
import { num, str, strings, type Raw } from './raw-values.js';
import type { ParseCache } from './parse-cache.js';
import { describeFsError } from '../shared/fs-errors.js';
import { DEFAULT_MAX_BYTES, FileReadError, formatBytes, MiB, readRegularFile } from '../shared/read-file.js';

/** An agent's timeout when its entry gives none. */
export const AGENT_TIMEOUT_MS = 300_000;
export interface LoadOptions {
  /** Base for relative paths and for how paths are shown; defaults to process.cwd(). */
  cwd?: string;
  /** Parsed files remembered by content (the manager's cache on disk); none by default. */
  parseCache?: ParseCache;
}

export interface LoadedCatalog {
  catalog: Catalog;
  /** Every file read, by display path. */
  sources: Map<string, SourceFile>;
  /** Findings from reading, parsing and the catalog schema. */
  diagnostics: Diagnostic[];
  reporters: Map<string, Reporter>;
}

/** The most one catalog file may hold (see DEFAULT_MAX_BYTES). */
export const MAX_CATALOG_FILE_BYTES = DEFAULT_MAX_BYTES;
/** The most all files of one catalog may hold together: includes must not add up to more memory than one big file could. */
export const MAX_CATALOG_TOTAL_BYTES = 256 * MiB;

/** One file on the include stack: its identity (real path) and how it was reached (for messages). */
interface StackEntry {
  real: string;
  absolute: string;
}

/**
 * Reads one or more root catalog files and everything they include into one catalog. Problems in
 * the files are diagnostics; only a root file that cannot be read at all throws.
 *
 * Files are identified by their real path (symbolic links resolved), so a file reached through
 * two linked folders is read once, and a cycle through links is found as a cycle; paths are
 * shown and resolved as the user wrote them.
 */
export function loadCatalog(paths: readonly string[], options: LoadOptions = {}): LoadedCatalog {
  const cwd = options.cwd ?? process.cwd();
  const state = new LoadState(cwd, options.parseCache);
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let read: { real: string; text: string };
    try {
      read = readCatalogFile(absolute, MAX_CATALOG_FILE_BYTES);
    } catch (error) {
      throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `cannot read catalog ${path}: ${reasonOf(error)}`, {
        hint: 'check the path; toolman reads toolman.yaml in the working directory unless --catalog names another file',
        cause: error,
      });
    }
    if (state.isLoaded(read.real)) continue; // the same file named twice
    state.loadFile(path, absolute, read, {}, []);
  }
  return state.finish(paths);
}

/** Resolves a catalog file's real path and reads it as a regular file of at most `maxBytes`. */
function readCatalogFile(absolute: string, maxBytes: number): { real: string; text: string } {
  const real = realpathSync(absolute);
  return { real, text: readRegularFile(real, { maxBytes }) };
}

function reasonOf(error: unknown): string {
  return error instanceof FileReadError ? error.reason : describeFsError(error);
}

class LoadState {
  readonly sources = new Map<string, SourceFile>();
  readonly reporters = new Map<string, Reporter>();
  readonly diagnostics: Diagnostic[] = [];
  readonly tools: Tool[] = [];
  readonly profiles = new Map<string, Profile>();
  readonly policies: Catalog['policies'] = [];
  readonly overrides: Override[] = [];
  readonly lint: LintSetting[] = [];
  readonly lintClients: LintClient[] = [];
  readonly mcpServers = new Map<string, McpServerConfig>();
  readonly agents = new Map<string, AgentConfig>();
  readonly evaluations = new Map<string, EvaluationDefinition>();
  /**
   * `budget.summarize` of the first file that sets it, root first: an included catalog's tools
   * with `truncation: summarize` bring their model along, unless the including file names one.
   */
  private summarize: { settings: SummarizeSettings; file: string } | undefined;
  /** Real paths of the files read so far. */
  private readonly loaded = new Set<string>();
  /** Real path of each file, by display path. */
  private readonly realPaths = new Map<string, string>();
  private bytesRead = 0;
  private root: Raw | undefined;

  constructor(
    private readonly cwd: string,
    private readonly parseCache: ParseCache | undefined,
  ) {}

  isLoaded(real: string): boolean {
    return this.loaded.has(real);
  }

  loadFile(displayPath: string, absolute: string, read: { real: string; text: string }, inherited: ToolDefaults, stack: StackEntry[]): void {
    this.loaded.add(read.real);
    this.realPaths.set(displayPath, read.real);
    this.bytesRead += Buffer.byteLength(read.text);
    const { file, diagnostics } = SourceFile.parse(displayPath, absolute, read.text, { catalog: true, ...(this.parseCache ? { cache: this.parseCache } : {}) });
    this.diagnostics.push(...diagnostics);
    this.sources.set(displayPath, file);
    const reporter = new Reporter(file, this.diagnostics);
    this.reporters.set(displayPath, reporter);
    // Duplicate keys leave usable data (the last value wins); any other YAML error leaves none.
    if (diagnostics.some((d) => d.severity === 'error' && d.code !== 'TM0002')) return;
    const data = file.data;
    if (!isRecord(data)) {
      reporter.report('TM0006', '', `the file holds ${data === null || data === undefined ? 'no document' : Array.isArray(data) ? 'a list' : 'a ' + typeof data}, not a catalog mapping`, {
        hint: 'start the file with `toolman: 1` and a `tools:` list',
      });
      return;
    }
    if (!looksLikeCatalog(data)) {
      // Some other YAML file (an include may name any file): say so once, quoting none of it.
      reporter.report('TM0006', '', 'the file is a mapping with neither `toolman:` nor a `tools:` list: it does not look like a toolman catalog', { hint: NOT_A_CATALOG_HINT });
      return;
    }
    this.root ??= data;
    checkCatalogSchema(data, reporter);
    const summarize = isRecord(data.budget) ? summarizeSettings(data.budget.summarize) : undefined;
    if (summarize && !this.summarize) this.summarize = { settings: summarize, file: displayPath };

    const defaults: ToolDefaults = { ...inherited, ...(isRecord(data.defaults) ? (data.defaults as ToolDefaults) : {}) };
    if (Array.isArray(data.tools)) {
      data.tools.forEach((entry, i) => {
        if (isRecord(entry) && typeof entry.name === 'string') {
          this.tools.push(buildTool(entry, defaults, { kind: 'catalog', file: displayPath, pointer: pointerOf(['tools', i]) }, absolute));
        }
      });
    }
    // A file's own definitions come before those it includes, so duplicates are reported in the included file.
    this.collectNamed(data, reporter, displayPath, absolute, stack);
    if (Array.isArray(data.include)) {
      data.include.forEach((entry, i) => {
        if (typeof entry !== 'string' || entry === '') return;
        this.include(entry, pointerOf(['include', i]), absolute, reporter, defaults, [...stack, { real: read.real, absolute }]);
      });
    }
  }

  private include(entry: string, pointer: string, from: string, reporter: Reporter, defaults: ToolDefaults, stack: StackEntry[]): void {
    const absolute = isAbsolute(entry) ? entry : resolve(dirname(from), entry);
    const display = this.display(absolute);
    const cannot = (reason: string) =>
      reporter.report('TM0004', pointer, `cannot include ${JSON.stringify(entry)} (${display}): ${reason}`, {
        hint: 'include paths are relative to the file that includes them',
      });
    let real: string;
    try {
      real = realpathSync(absolute);
    } catch (error) {
      cannot(describeFsError(error));
      return;
    }
    const at = stack.findIndex((s) => s.real === real);
    if (at >= 0) {
      const cycle = [...stack.slice(at).map((s) => this.display(s.absolute)), display];
      reporter.report('TM0005', pointer, `include cycle: ${cycle.join(' -> ')}`, { hint: 'remove one of these includes' });
      return;
    }
    if (this.loaded.has(real)) return; // already merged through another include (or another link to it)
    if (this.bytesRead >= MAX_CATALOG_TOTAL_BYTES) {
      cannot(`not read: the catalog's files already hold ${formatBytes(MAX_CATALOG_TOTAL_BYTES)}, the most one catalog may`);
      return;
    }
    let text: string;
    try {
      text = readRegularFile(real, { maxBytes: MAX_CATALOG_FILE_BYTES });
    } catch (error) {
      cannot(reasonOf(error));
      return;
    }
    this.loadFile(display, absolute, { real, text }, defaults, stack);
  }

  private display(absolute: string): string {
    return relative(this.cwd, absolute) || absolute;
  }

  private collectNamed(data: Raw, reporter: Reporter, file: string, absolute: string, stack: StackEntry[]): void {
    /**
     * A definition in a file overrides one of the same name in the files it includes (a file's own
     * definitions are read before its includes, so the including file's always comes first);
     * two definitions in files that do not include one another are an error.
     */
    const duplicate = (kind: string, name: string, pointer: string, earlier: { file: string; pointer: string }) => {
      const earlierReal = this.realPaths.get(earlier.file);
      if (earlierReal !== undefined && stack.some((s) => s.real === earlierReal)) return;
      const where = this.sources.get(earlier.file)?.locate(earlier.pointer, 'key');
      reporter.report('TM0208', pointer, `${kind} "${name}" is already defined at ${earlier.file}:${where?.line ?? 0}:${where?.column ?? 0}`, { part: 'key' });
    };
    if (isRecord(data.profiles)) {
      for (const [name, raw] of Object.entries(data.profiles)) {
        if (!isRecord(raw)) continue;
        const pointer = pointerOf(['profiles', name]);
        const earlier = this.profiles.get(name);
        if (earlier) duplicate('profile', name, pointer, earlier);
        else {
          const ext = typeof raw.extends === 'string' ? [raw.extends] : (strings(raw.extends) ?? []);
          this.profiles.set(name, {
            name,
            description: str(raw.description),
            extends: ext,
            include: strings(raw.include) ?? [],
            exclude: strings(raw.exclude) ?? [],
            defer: strings(raw.defer) ?? [],
            deferAuto: raw.defer === 'auto',
            forced: strings(raw.forced) ?? [],
            file,
            pointer,
          });
        }
      }
    }
    if (isRecord(data.lint)) {
      for (const [rule, level] of Object.entries(data.lint)) {
        if (rule === 'clients' && Array.isArray(level)) level.forEach((name, i) => typeof name === 'string' && this.lintClients.push({ name, file, pointer: pointerOf(['lint', 'clients', i]) }));
        if (level === 'off' || level === 'info' || level === 'warning' || level === 'error') this.lint.push({ rule, level, file, pointer: pointerOf(['lint', rule]), depth: stack.length });
      }
    }
    if (Array.isArray(data.overrides)) {
      data.overrides.forEach((raw, i) => {
        if (!isRecord(raw) || !isRecord(raw.set)) return;
        this.overrides.push({ tools: strings(raw.tools) ?? [], set: raw.set, file, pointer: pointerOf(['overrides', i]), absolutePath: absolute, depth: stack.length });
      });
    }
    if (Array.isArray(data.policies)) {
      data.policies.forEach((raw, i) => {
        if (!isRecord(raw)) return;
        const allow = strings(raw.allow);
        this.policies.push({ label: str(raw.label) ?? `policy ${i}`, deny: strings(raw.deny) ?? [], ...(allow ? { allow } : {}), file, pointer: pointerOf(['policies', i]) });
      });
    }
    if (isRecord(data.mcp_servers)) {
      for (const [name, raw] of Object.entries(data.mcp_servers)) {
        if (!isRecord(raw)) continue;
        const pointer = pointerOf(['mcp_servers', name]);
        const earlier = this.mcpServers.get(name);
        if (earlier) {
          duplicate('MCP server', name, pointer, earlier);
          continue;
        }
        if ((raw.command === undefined) === (raw.url === undefined)) {
          reporter.report('TM0105', pointer, raw.command === undefined ? 'give either `command` (stdio) or `url` (HTTP)' : 'give `command` (stdio) or `url` (HTTP), not both');
        }
        this.mcpServers.set(name, {
          name,
          command: str(raw.command),
          args: strings(raw.args) ?? [],
          env: isRecord(raw.env) ? (raw.env as Record<string, string>) : {},
          cwd: str(raw.cwd),
          url: str(raw.url),
          headers: isRecord(raw.headers) ? (raw.headers as Record<string, string>) : {},
          prefix: str(raw.prefix) ?? '',
          include: strings(raw.include) ?? [],
          exclude: strings(raw.exclude) ?? [],
          defaults: isRecord(raw.defaults) ? (raw.defaults as ToolDefaults) : {},
          timeoutMs: num(raw.timeout_ms),
          ...(raw.protocol === 'auto' || raw.protocol === 'legacy' || raw.protocol === '2026-07-28' ? { protocol: raw.protocol } : {}),
          ...(strings(raw.roots) ? { roots: strings(raw.roots)! } : {}),
          ...(isRecord(raw.oauth) ? { oauth: oauthConfig(raw.oauth) } : {}),
          file,
          pointer,
        });
        // OAuth is HTTP's: a stdio server takes its credentials from its environment (MCP
        // 2026-07-28, basic/authorization/index.mdx).
        if (raw.oauth !== undefined && raw.url === undefined && raw.command !== undefined) {
          reporter.report('TM0832', pointerOf(['mcp_servers', name, 'oauth']), '`oauth` applies to HTTP servers (`url`) only; a stdio server reads its credentials from `env`', { part: 'key', hint: 'remove `oauth`, or pass the credential to the server through `env`' });
        }
        // A root that is not a folder would be offered to the server anyway: said here, where it is written.
        (strings(raw.roots) ?? []).forEach((root, i) => {
          const path = isAbsolute(root) ? root : resolve(dirname(absolute), root);
          let folder = false;
          try {
            folder = statSync(path).isDirectory();
          } catch {
            // missing: reported below
          }
          if (!folder) reporter.report('TM0833', pointerOf(['mcp_servers', name, 'roots', i]), `root ${JSON.stringify(root)} is not a folder (${path})`, { hint: 'roots are folders, relative to this catalog file' });
        });
      }
    }
    if (isRecord(data.evaluations)) {
      for (const [name, raw] of Object.entries(data.evaluations)) {
        if (!isRecord(raw)) continue;
        const pointer = pointerOf(['evaluations', name]);
        const earlier = this.evaluations.get(name);
        if (earlier) duplicate('evaluation', name, pointer, earlier);
        else {
          const definition = buildEvaluation(name, raw, file, pointer);
          if (definition) this.evaluations.set(name, definition);
        }
      }
    }
    if (isRecord(data.agents)) {
      for (const [name, raw] of Object.entries(data.agents)) {
        if (!isRecord(raw)) continue;
        const pointer = pointerOf(['agents', name]);
        const earlier = this.agents.get(name);
        if (earlier) {
          duplicate('agent', name, pointer, earlier);
          continue;
        }
        if ((raw.a2a === undefined) === (raw.local === undefined)) {
          reporter.report('TM0105', pointer, raw.a2a === undefined ? 'give either `a2a` (a remote agent) or `local` (a nested loop)' : 'give `a2a` or `local`, not both');
        }
        this.agents.set(name, {
          name,
          a2a: isRecord(raw.a2a) ? (raw.a2a as unknown as AgentConfig['a2a']) : undefined,
          local: isRecord(raw.local) ? (raw.local as AgentConfig['local']) : undefined,
          file,
          pointer,
        });
        const parameters = isRecord(raw.parameters)
          ? raw.parameters
          : { type: 'object', properties: { task: { type: 'string', description: 'The task or question for the agent, with all the context it needs.' } }, required: ['task'] };
        // An agent works through a whole task: it gets minutes, not a tool's 30 s, unless it says otherwise.
        const tool = buildTool({ ...raw, name, parameters, handler: undefined }, { timeout_ms: AGENT_TIMEOUT_MS }, { kind: 'agent', name, file, pointer }, absolute);
        tool.handler = { kind: 'agent', agent: name };
        this.tools.push(tool);
      }
    }
  }

  finish(paths: readonly string[]): LoadedCatalog {
    applyOverrides(this.tools, this.overrides);
    reportAliasConflicts(this.tools, this.reporters, this.sources);
    const root = this.root ?? {};
    const budget = isRecord(root.budget) ? root.budget : {};
    const limits = isRecord(root.limits) ? root.limits : {};
    const search = isRecord(root.search) ? root.search : {};
    const format = isRecord(root.format) ? root.format : {};
    const catalog: Catalog = {
      name: str(root.name) ?? paths[0] ?? 'catalog',
      description: str(root.description),
      files: [...this.sources.keys()],
      tools: this.tools,
      profiles: this.profiles,
      policies: this.policies,
      overrides: this.overrides,
      lint: this.lint,
      lintClients: this.lintClients,
      mcpServers: this.mcpServers,
      agents: this.agents,
      evaluations: this.evaluations,
      budget: {
        definitions: num(budget.definitions),
        per_result: num(budget.per_result),
        total_results: num(budget.total_results),
        ...(this.summarize ? { summarize: { ...this.summarize.settings, file: this.summarize.file } } : {}),
      },
      limits: {
        max_calls_per_round: num(limits.max_calls_per_round) ?? DEFAULT_LIMITS.max_calls_per_round,
        max_rounds: num(limits.max_rounds) ?? DEFAULT_LIMITS.max_rounds,
        max_repeats: num(limits.max_repeats) ?? DEFAULT_LIMITS.max_repeats,
      },
      searchMode: search.mode === 'discover' ? 'discover' : 'tool_search',
      format: {
        ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
        ...(typeof format.cache_control === 'boolean' ? { cache_control: format.cache_control } : {}),
        ...(format.native_tool_search === 'bm25' || format.native_tool_search === 'regex' ? { native_tool_search: format.native_tool_search } : {}),
        ...(typeof format.gemini_json_schema === 'boolean' ? { gemini_json_schema: format.gemini_json_schema } : {}),
      },
    };
    return { catalog, sources: this.sources, diagnostics: this.diagnostics, reporters: this.reporters };
  }
}

/** A server entry's `oauth:` as typed settings (the schema has checked the types). */
function oauthConfig(raw: Record<string, unknown>): McpOAuthConfig {
  const scopes = strings(raw.scopes);
  return {
    ...(str(raw.client_id) !== undefined ? { clientId: str(raw.client_id)! } : {}),
    ...(str(raw.client_secret_env) !== undefined ? { clientSecretEnv: str(raw.client_secret_env)! } : {}),
    ...(scopes ? { scopes } : {}),
    ...(str(raw.client_metadata_url) !== undefined ? { clientMetadataUrl: str(raw.client_metadata_url)! } : {}),
  };
}

/** An `evaluations:` entry: its one kind (regex, not_regex, schema or rubric; validate says when it has none or several: TM1402). */
function buildEvaluation(name: string, raw: Raw, file: string, pointer: string): EvaluationDefinition | undefined {
  const base = { name, file, pointer, ...(typeof raw.description === 'string' ? { description: raw.description } : {}) };
  const on = raw.on === 'result' ? 'result' : raw.on === 'answer' ? 'answer' : undefined;
  if (typeof raw.regex === 'string') return { ...base, kind: 'regex', pattern: raw.regex, on: on ?? 'answer' };
  if (typeof raw.not_regex === 'string') return { ...base, kind: 'not_regex', pattern: raw.not_regex, on: on ?? 'answer' };
  if (isRecord(raw.schema)) return { ...base, kind: 'schema', schema: raw.schema, on: on ?? 'result' };
  if (typeof raw.rubric === 'string') return { ...base, kind: 'rubric', rubric: raw.rubric, on: 'answer', ...(typeof raw.provider === 'string' ? { provider: raw.provider } : {}), ...(typeof raw.model === 'string' ? { model: raw.model } : {}) };
  return undefined;
}

/** `budget.summarize`, when it names a provider and a model. */
function summarizeSettings(raw: unknown): SummarizeSettings | undefined {
  if (!isRecord(raw) || typeof raw.provider !== 'string' || typeof raw.model !== 'string') return undefined;
  return {
    provider: raw.provider,
    model: raw.model,
    ...(typeof raw.prompt === 'string' ? { prompt: raw.prompt } : {}),
    ...(num(raw.threshold) !== undefined ? { threshold: num(raw.threshold)! } : {}),
    ...(typeof raw.base_url === 'string' ? { base_url: raw.base_url } : {}),
  };
}
