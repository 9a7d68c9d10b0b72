/**
 * The interface a handler plugin implements (docs/catalog-format.md#handler-plugins): a package
 * (or a file next to the catalog) that exports `toolmanPlugin`, registering runner kinds the way
 * an orchestrator's tool factory registers a tool class with its config class. A catalog names a
 * kind with `handler: {plugin: "package#kind", config: {...}}`; toolman checks the config against
 * the kind's `configSchema` (`toolman validate` says where it is wrong), creates the kind's runner
 * once per config, and runs the tool's calls through it with the executor's rules, as for any
 * handler. The plugin's code runs in a worker thread, as module handlers do.
 *
 * Versioned: `apiVersion` says which version of this interface the plugin was written for, and
 * toolman refuses one it does not speak (TM0741), rather than guess.
 */

/** The version of the plugin interface this toolman speaks. */
export const PLUGIN_API_VERSION = 1;

/** What a plugin exports as `toolmanPlugin` (or as its default export). */
export interface ToolmanPlugin {
  apiVersion: typeof PLUGIN_API_VERSION;
  /** Runner kinds by name: `handler: {plugin: "package#name"}`. */
  kinds: Record<string, PluginKind>;
}

export interface PluginKind {
  /** One line for people reading the catalog (shown by `toolman validate` in hints). */
  description?: string;
  /** JSON Schema (draft 2020-12) of the handler's `config`; it must compile with ajv. */
  configSchema: Record<string, unknown>;
  /**
   * Makes a runner for one config (a config that matches `configSchema`, `${env:NAME}` filled).
   * Called once per distinct config, in the plugin's worker thread, on the first call that needs it.
   */
  create(config: Record<string, unknown>, context: PluginCreateContext): PluginRunner | Promise<PluginRunner>;
}

export interface PluginCreateContext {
  /** The folder of the catalog file that wrote the handler: paths in the config are relative to it. */
  catalogDir: string;
  /** toolman's working directory. */
  cwd: string;
}

export interface PluginRunner {
  /**
   * Runs one call, with arguments already checked against the tool's parameters: returns any JSON
   * value or text; a throw is the tool's failure, told to the model. For a `mode: stateful` tool
   * it may return an async iterable (an async generator): each yield is read with `job_next`.
   */
  run(args: Record<string, unknown>, context: PluginCallContext): unknown;
  /** Called when toolman stops the plugin's worker (at most a second is waited for). */
  close?(): void | Promise<void>;
}

/** The same context a module handler's function gets. */
export interface PluginCallContext {
  cwd: string;
  /** Aborted when toolman cancels the call (timeout, Ctrl-C) or stops a stateful job. */
  signal: AbortSignal;
  progress(message: string): void;
  /** Per session and tool; lives in the worker. */
  scratch: Map<string, unknown>;
  /** The tool's name. */
  tool: string;
}

/** One kind as toolman sees it, checked: its config schema, and whether it can be created. */
export interface PluginKindInfo {
  description?: string;
  configSchema: Record<string, unknown>;
}

/**
 * What a plugin's worker reported about its exports (`describePlugin` in the worker script),
 * checked against this interface: the kinds, or why the plugin cannot be used.
 */
export function checkPluginDescription(described: unknown, label: string): { ok: true; kinds: Map<string, PluginKindInfo> } | { ok: false; message: string; hint?: string } {
  const record = isObject(described) ? described : {};
  if (record.found !== true) {
    const names = Array.isArray(record.exports) ? record.exports.filter((n): n is string => typeof n === 'string') : [];
    return { ok: false, message: `${label} exports no toolmanPlugin` + (names.length ? ` (its exports: ${names.join(', ')})` : ' (it exports nothing)'), hint: 'a plugin exports `toolmanPlugin = { apiVersion: 1, kinds: { name: { configSchema, create } } }` (docs/catalog-format.md#handler-plugins)' };
  }
  if (record.apiVersion !== PLUGIN_API_VERSION) {
    return { ok: false, message: `${label} is written for plugin apiVersion ${JSON.stringify(record.apiVersion ?? null)}; this toolman speaks ${PLUGIN_API_VERSION}`, hint: 'use a version of the plugin made for this toolman, or a toolman that speaks its version' };
  }
  if (!isObject(record.kinds) || Object.keys(record.kinds).length === 0) return { ok: false, message: `${label}'s toolmanPlugin has no kinds`, hint: 'toolmanPlugin.kinds names each runner kind: { name: { configSchema, create } }' };
  const kinds = new Map<string, PluginKindInfo>();
  for (const [name, value] of Object.entries(record.kinds)) {
    const kind = isObject(value) ? value : {};
    if (kind.create !== true) return { ok: false, message: `${label}'s kind ${JSON.stringify(name)} has no create function` };
    if (!isObject(kind.configSchema)) return { ok: false, message: `${label}'s kind ${JSON.stringify(name)} exports no configSchema (a JSON Schema object)` };
    kinds.set(name, { configSchema: kind.configSchema, ...(typeof kind.description === 'string' ? { description: kind.description } : {}) });
  }
  return { ok: true, kinds };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
