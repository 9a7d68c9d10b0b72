/** The catalog model every later stage (select, search, tokens, providers, execute) works on. */

export type Effect = 'read' | 'write' | 'destructive';
export type Confirm = 'auto' | 'always' | 'never';
export type Concurrency = 'safe' | 'serial';
/** direct: answers when done; background: a job id at once; stateful: an async generator read yield by yield (job_next). */
export type RunMode = 'direct' | 'background' | 'stateful';
/** How a result over its limit is shortened; `summarize` asks a small model (`budget.summarize`), falling back to `smart`. */
export type Truncation = 'head' | 'tail' | 'smart' | 'summarize';

/** The truncations in the order the schema lists them (the loader and overrides read values against it). */
export const TRUNCATIONS = ['head', 'tail', 'smart', 'summarize'] as const;

export type JsonSchema = Record<string, unknown>;

export interface ToolPrompts {
  system?: string;
  system_format?: string;
  user?: string;
  user_format?: string;
  user_reminder?: string;
}

export interface MockCase {
  when?: Record<string, unknown>;
  result?: unknown;
  error?: string;
  latency_ms?: number;
  /** For `mode: stateful`: what the tool yields, in order (`latency_ms` before each), before its `result` or `error`. */
  yields?: unknown[];
}

/**
 * A handler of a kind a package registers (`handler: {plugin: "pkg#kind", config}`): the package is
 * resolved from the catalog file's folder, the way Node resolves an import there (or a relative
 * path), and its runner is created from `config` once that has been checked against the JSON
 * Schema the plugin exports (src/execute/plugin-api.ts).
 */
export interface PluginHandler {
  /** As written: `package#kind` or `./path#kind`. */
  spec: string;
  /** The package name or relative path before `#`. */
  specifier: string;
  /** The kind after `#`. */
  pluginKind: string;
  config: Record<string, unknown>;
  /** The catalog file (absolute) the handler was written in: the package resolves from its folder. */
  catalogFile: string;
  /** Where the handler was written (a tool, or an override's `set`): config errors point into it. */
  file: string;
  pointer: string;
}

export interface ExecHandler {
  argv: string[];
  cwd?: string;
  env?: string[];
  /** Parameters whose values may start with `-` where they begin an argument before `--`. */
  allow_options?: string[];
  timeout_ms?: number;
  max_output_bytes?: number;
  /**
   * What the call's result is: `process` (default) `{exit_code, stdout, stderr}`; `json` the JSON
   * the program prints on standard output, parsed, so `references:`, result checks and
   * `output_schema` read the program's own value (output that is not JSON is the call's error).
   */
  output?: 'process' | 'json';
}

export interface HttpHandler {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeout_ms?: number;
  max_response_bytes?: number;
  /** Follow redirects to addresses more private than the URL's host (private networks, loopback, link-local and metadata). Default false. */
  allow_private_redirects?: boolean;
}

/**
 * How a tool runs. Each kind has a runner (src/execute/runners/, and later MCP and agents)
 * registered by kind, so a new kind of tool never touches the executor.
 */
export type Handler =
  | { kind: 'mock'; cases: MockCase[] }
  | { kind: 'exec'; exec: ExecHandler }
  | { kind: 'http'; http: HttpHandler }
  | { kind: 'module'; file: string; exportName: string; spec: string }
  /** A runner kind a package registers (PluginHandler). */
  | ({ kind: 'plugin' } & PluginHandler)
  /** A tool of an MCP server (`mcp_servers:`): sent with `tools/call` under its original MCP name. */
  | { kind: 'mcp'; server: string; tool: string }
  /** A sub-agent entry (`agents:`): the call hands a task to the agent. */
  | { kind: 'agent'; agent: string }
  /** toolman's own meta-tools, answered by the session (search, discovery, jobs). */
  | { kind: 'meta' };
export type HandlerKind = Handler['kind'];

/** Where a tool came from: a catalog file, a sub-agent entry, or an MCP server (its entry in `mcp_servers:`). */
export type ToolSource =
  | { kind: 'catalog'; file: string; pointer: string }
  | { kind: 'agent'; name: string; file: string; pointer: string }
  /** `file` and `pointer` locate the server's entry; `tool` is the tool's name on the server. */
  | { kind: 'mcp'; server: string; tool: string; file: string; pointer: string }
  /** toolman's own meta-tools (tool_search, discover_tools...). */
  | { kind: 'meta' };

export interface Tool {
  name: string;
  title?: string;
  summary?: string;
  description?: string;
  aliases: string[];
  category?: string;
  tags: string[];
  keywords: string[];
  profiles: string[];
  effect: Effect;
  confirm: Confirm;
  enabled: boolean;
  exclusive: boolean;
  takesControl: boolean;
  deferLoading: boolean;
  alwaysLoad: boolean;
  concurrency: Concurrency;
  mode: RunMode;
  dedupe: boolean;
  timeoutMs: number;
  maxResultTokens: number;
  truncation: Truncation;
  prompts: ToolPrompts;
  docs?: string;
  parameters: JsonSchema;
  /**
   * JSON Schema (draft 2020-12) of what the tool returns (`output_schema`; an MCP server's
   * `outputSchema`): every result is checked against it before it is truncated, and one that does
   * not match is an `invalid_output` error. What is checked: an MCP tool's `structuredContent`,
   * any other tool's result value as its runner gives it.
   */
  outputSchema?: JsonSchema;
  /**
   * Where the citable sources in the tool's results are (`references:`): a selector for the items
   * and, within each, for url, title and snippet; or the MCP `resource_link` blocks of its result.
   */
  references?: ReferenceSpec;
  /** Checks the tool's answers should pass (`evaluation:`), by name from the catalog's `evaluations`. */
  evaluation?: string[];
  examples: Record<string, unknown>[];
  handler?: Handler;
  /**
   * A provider's own tool (web search, code execution...) by provider name: passed through
   * as written to providers that have an entry, never run by toolman's executor.
   */
  native?: Record<string, Record<string, unknown>>;
  source: ToolSource;
  /** An MCP server's hints the catalog has no field for, kept for `serve` to pass on (booleans only). */
  mcpHints?: { openWorld?: boolean; idempotent?: boolean };
  /** Overrides that changed this tool, in the order they applied (for `show` and `list --explain`). */
  overriddenBy?: { file: string; pointer: string; fields: string[] }[];
}

/**
 * Where a tool's citable sources are. `select`: `items` selects the source objects in the result
 * (a small JSONPath subset, shared/json-selector.ts) and `url`, `title`, `snippet` select each
 * one's fields from the item (`$` is the item). `resource_links`: the MCP `resource_link` blocks
 * of an MCP tool's result.
 */
export type ReferenceSpec = { kind: 'select'; items: string; url: string; title?: string; snippet?: string } | { kind: 'resource_links' };

/** Where an evaluation check looks: the turn's answer, or each result of a tool that declares it. */
export type EvaluationTarget = 'answer' | 'result';

/**
 * One check of `evaluations:`, run after a turn that used a tool listing it: a regular expression
 * the text must match (`regex`) or must not (`not_regex`), on RE2; a JSON Schema the text (parsed)
 * must match; or a rubric a model grades the answer by.
 */
export type EvaluationDefinition = {
  name: string;
  description?: string;
  file: string;
  pointer: string;
} & (
  | { kind: 'regex'; pattern: string; on: EvaluationTarget }
  | { kind: 'not_regex'; pattern: string; on: EvaluationTarget }
  | { kind: 'schema'; schema: JsonSchema; on: EvaluationTarget }
  | { kind: 'rubric'; rubric: string; provider?: string; model?: string; on: 'answer' }
);

/** One `lint:` setting: a rule (code or name, as written) and its level. */
export interface LintSetting {
  rule: string;
  level: 'off' | 'info' | 'warning' | 'error';
  file: string;
  pointer: string;
  /** How many includes deep the file is: the root's settings win. */
  depth: number;
}

/** An MCP client named in `lint.clients:`, whose limits validate checks. */
export interface LintClient {
  name: string;
  file: string;
  pointer: string;
}

/** An `overrides:` entry: fields set on every tool the patterns match. */
export interface Override {
  tools: string[];
  set: Record<string, unknown>;
  file: string;
  pointer: string;
  /** The file's absolute path: module handlers in `set` resolve from its folder. */
  absolutePath: string;
  /** How many includes deep the file is (the root is 0): deeper files apply first. */
  depth: number;
}

export interface ToolDefaults {
  category?: string;
  tags?: string[];
  profiles?: string[];
  effect?: Effect;
  confirm?: Confirm;
  enabled?: boolean;
  defer_loading?: boolean;
  concurrency?: Concurrency;
  mode?: RunMode;
  timeout_ms?: number;
  max_result_tokens?: number;
  truncation?: Truncation;
}

export interface Profile {
  name: string;
  description?: string;
  extends: string[];
  include: string[];
  exclude: string[];
  defer: string[];
  /** `defer: auto`: defer the costliest tools until the definitions budget fits. */
  deferAuto: boolean;
  forced: string[];
  file: string;
  pointer: string;
}

export interface Policy {
  label: string;
  deny: string[];
  allow?: string[];
  file: string;
  pointer: string;
}

export interface McpServerConfig {
  name: string;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  prefix: string;
  include: string[];
  exclude: string[];
  defaults: ToolDefaults;
  timeoutMs?: number;
  /**
   * Which MCP revision to speak: `auto` (the default) asks with `server/discover` and falls back
   * to `initialize` for a 2025 server; `legacy` skips the probe; `2026-07-28` refuses a server
   * that does not speak it.
   */
  protocol?: McpProtocolChoice;
  /**
   * Folders offered to the server as MCP roots (resolved from the entry's file), when it asks.
   * Absent: toolman declares no roots capability, and the server keeps its own configuration.
   */
  roots?: string[];
  /** OAuth settings for an HTTP server that asks for authorization (all optional). */
  oauth?: McpOAuthConfig;
  file: string;
  pointer: string;
}

export type McpProtocolChoice = 'auto' | 'legacy' | '2026-07-28';

/** A server entry's `oauth:`: how toolman registers with the server's authorization server. */
export interface McpOAuthConfig {
  /** A client id registered with the authorization server beforehand. */
  clientId?: string;
  /** The environment variable holding that client's secret (a confidential client). */
  clientSecretEnv?: string;
  /** Scopes to ask for when the server's challenge names none. */
  scopes?: string[];
  /** An https URL where toolman's Client ID Metadata Document is published (CIMD). */
  clientMetadataUrl?: string;
}

/** A remote agent over Agent2Agent. */
export interface A2aAgentConfig {
  /** The agent's base URL (its card is at /.well-known/agent-card.json), or the card's own URL (….json). */
  url: string;
  /** Sent to the agent's origins only; `${env:NAME}` values are secrets. */
  headers?: Record<string, string>;
  /**
   * More origins the headers may go to besides `url`'s: where a card fetched through a redirect
   * to another origin lives, and the interfaces such a card names (a card reached that way is not
   * believed about where headers go, unless every hop was to an origin listed here).
   */
  origins?: string[];
  /** Where reading the agent's answers stops (card, answers, a whole stream); default 4 MiB. */
  max_response_bytes?: number;
}

/** A nested toolman loop over the same catalog. */
export interface LocalAgentConfig {
  provider?: string;
  model?: string;
  /** An OpenAI-compatible (or Anthropic) server instead of the provider's API. */
  base_url?: string;
  system?: string;
  profile?: string;
  max_rounds?: number;
}

export interface AgentConfig {
  name: string;
  a2a?: A2aAgentConfig;
  local?: LocalAgentConfig;
  file: string;
  pointer: string;
}

/** `budget.summarize`: the model that summarises results over their limit (`truncation: summarize`). */
export interface SummarizeSettings {
  /** A chat provider name (openai, openai-responses, anthropic, gemini). */
  provider: string;
  model: string;
  /** The instruction the model gets with the result; default: toolman's (conversation/result-summariser.ts). */
  prompt?: string;
  /** Only results of at least this many (estimated) tokens are summarised; smaller overflows are cut with smart truncation. */
  threshold?: number;
  /** An OpenAI-compatible (or Anthropic) server instead of the provider's API. */
  base_url?: string;
  /** The file that set it (the root's wins; else the first included file's). */
  file?: string;
}

export interface Budget {
  definitions?: number;
  per_result?: number;
  total_results?: number;
  summarize?: SummarizeSettings;
}

export interface Limits {
  max_calls_per_round: number;
  max_rounds: number;
  /** The same call (name and arguments) allowed this many times in one user turn; more is a loop. */
  max_repeats: number;
}

/** Catalog-wide formatter settings (`format:`); command-line flags override them. */
export interface FormatSettings {
  strict?: boolean;
  cache_control?: boolean;
  native_tool_search?: 'bm25' | 'regex';
  gemini_json_schema?: boolean;
}

export interface Catalog {
  name: string;
  description?: string;
  /** Every file read, root first, as the user would write its path. */
  files: string[];
  tools: Tool[];
  profiles: Map<string, Profile>;
  policies: Policy[];
  overrides: Override[];
  lint: LintSetting[];
  /** `lint.clients:` of every file (the union): MCP clients the catalog is served to. */
  lintClients: LintClient[];
  mcpServers: Map<string, McpServerConfig>;
  agents: Map<string, AgentConfig>;
  /** `evaluations:`, by name: the checks tools list in `evaluation`. */
  evaluations: Map<string, EvaluationDefinition>;
  budget: Budget;
  limits: Limits;
  searchMode: 'tool_search' | 'discover';
  format: FormatSettings;
}

export const TOOL_DEFAULTS = {
  effect: 'write',
  confirm: 'auto',
  concurrency: 'safe',
  mode: 'direct',
  timeout_ms: 30_000,
  max_result_tokens: 2_000,
  truncation: 'smart',
} as const;

export const DEFAULT_LIMITS: Limits = { max_calls_per_round: 10, max_rounds: 8, max_repeats: 3 };

/** Names of toolman's own meta-tools, offered when tools are deferred; catalog tools may not use them. */
export const META_TOOL_NAMES = ['tool_search', 'discover_tools', 'get_tool_schema', 'invoke_tool', 'job_status', 'job_result', 'job_next', 'job_stop'] as const;
