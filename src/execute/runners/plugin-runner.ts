import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv, type AjvInstance } from '../../catalog/create-ajv.js';
import type { ParseCache } from '../../catalog/parse-cache.js';
import type { PluginHandler } from '../../catalog/types.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { closest } from '../../shared/did-you-mean.js';
import { checkPluginDescription, type PluginKindInfo } from '../plugin-api.js';
import { ToolFailure, type RunContext, type ToolRunner, type YieldStream } from '../runner.js';
import { fillEnv } from '../templates.js';
import { ModuleWorkers, type WorkerSource } from './module-workers.js';
import { resolvePlugin } from './plugin-resolve.js';

/** How long loading a plugin to read its kinds may take (its top-level code runs then). */
export const DESCRIBE_TIMEOUT_MS = 10_000;

/** Why a plugin handler cannot be used, as `validate` reports it: the code and the message. */
export interface PluginProblem {
  code: 'TM0740' | 'TM0741' | 'TM0742' | 'TM0744';
  message: string;
  hint?: string;
}

/** A config's mismatch with its kind's schema: where in the config (a JSON Pointer below `config`), and what (naming the place: `config.units must be ...`). */
export interface ConfigError {
  pointer: string;
  message: string;
  /** Point at the key (an unknown key) rather than the value. */
  part?: 'key';
}

/** A plugin handler as its plugin sees it: the kind it runs, and what is wrong with its config. */
export type PluginInspection = { ok: true; kind: string; file: string; configErrors: ConfigError[] } | { ok: false; problem: PluginProblem };

/** The runner of `plugin` handlers; `inspect` tells `validate` what each handler's plugin makes of it. */
export interface PluginToolRunner extends ToolRunner<'plugin'> {
  inspect(handler: PluginHandler): Promise<PluginInspection>;
  close(): Promise<void>;
}

type Loaded = { ok: true; file: string; kinds: Map<string, PluginKindInfo>; check(kind: PluginKindInfo, config: Record<string, unknown>): ConfigCheck } | { ok: false; problem: PluginProblem };

/** A config checked against its kind's schema: its mismatches, or why the schema does not compile. */
type ConfigCheck = { errors: ConfigError[] } | { schemaError: string };

/**
 * The runner of every `plugin` handler: it finds the plugin from the catalog's folder
 * (plugin-resolve.ts), reads its kinds in the plugin's own worker thread (its code never runs in
 * toolman's), checks the handler's config against the kind's schema, and runs calls there through
 * the runner the kind creates for that config. Nothing is loaded before a plugin tool is called
 * or `validate` asks.
 */
export function createPluginRunner(options: { output?: (text: string) => void; checks?: ParseCache } = {}): PluginToolRunner {
  const workers = new ModuleWorkers('plugin runner', options.output ?? (() => undefined));
  const loads = new Map<string, Promise<Loaded>>();
  const inspections = new WeakMap<PluginHandler, Promise<PluginInspection>>();

  const load = (handler: PluginHandler): Promise<Loaded> => {
    const key = `${dirname(handler.catalogFile)}\u0000${handler.specifier}`;
    let loaded = loads.get(key);
    if (!loaded) {
      loaded = (async (): Promise<Loaded> => {
        const location = await resolvePlugin(handler.specifier, handler.catalogFile);
        if (!location.ok) return { ok: false, problem: { code: 'TM0740', message: location.message, hint: location.hint } };
        let described: unknown;
        try {
          described = await workers.describe(source(handler, location.file), DESCRIBE_TIMEOUT_MS);
        } catch (error) {
          const timedOut = error instanceof Error && error.name === 'TimeoutError';
          return { ok: false, problem: { code: 'TM0741', message: timedOut ? `the plugin ${handler.specifier} did not finish loading within ${DESCRIBE_TIMEOUT_MS} ms` : `the plugin ${handler.specifier} cannot be loaded: ${describe(error)}`, hint: 'run its entry file with node to see why' } };
        }
        const checked = checkPluginDescription(described, `the plugin ${handler.specifier}`);
        if (!checked.ok) return { ok: false, problem: { code: 'TM0741', message: checked.message, ...(checked.hint ? { hint: checked.hint } : {}) } };
        // An ajv of its own, made only when a check is not remembered: two plugins may well give
        // their schemas the same $id, and loading ajv is most of what a warm check would cost.
        let ajv: AjvInstance | undefined;
        const compiled = new Map<PluginKindInfo, ValidateFunction | { error: string }>();
        const check = (kind: PluginKindInfo, config: Record<string, unknown>): ConfigCheck => {
          // A pure function of the schema and the config: remembered by both, in the authenticated cache.
          const key = `plugin-config\u0000${canonicalJson({ schema: kind.configSchema, config })}`;
          const remembered = options.checks?.get(key);
          if (isConfigCheck(remembered)) return remembered;
          let validate = compiled.get(kind);
          if (!validate) compiled.set(kind, (validate = compile((ajv ??= createAjv({ strict: false, allErrors: true, verbose: true })), kind.configSchema)));
          const result: ConfigCheck = 'error' in validate ? { schemaError: validate.error } : { errors: validate(config) ? [] : configProblems(validate.errors ?? []) };
          options.checks?.set(key, result);
          return result;
        };
        return { ok: true, file: location.file, kinds: checked.kinds, check };
      })();
      loads.set(key, loaded);
    }
    return loaded;
  };

  const inspect = (handler: PluginHandler): Promise<PluginInspection> => {
    let inspection = inspections.get(handler);
    if (!inspection) {
      inspection = load(handler).then((loaded): PluginInspection => {
        if (!loaded.ok) return loaded;
        const names = [...loaded.kinds.keys()];
        const name = handler.pluginKind || (names.length === 1 ? names[0]! : '');
        const kind = loaded.kinds.get(name);
        if (!kind) {
          if (!handler.pluginKind) return { ok: false, problem: { code: 'TM0742', message: `the plugin ${handler.specifier} has ${names.length} kinds (${names.join(', ')}); name one`, hint: `write ${handler.specifier}#${names[0]}` } };
          const near = closest(name, names);
          return { ok: false, problem: { code: 'TM0742', message: `the plugin ${handler.specifier} has no kind ${JSON.stringify(name)}` + (near ? `; did you mean ${JSON.stringify(near)}?` : ''), hint: `its kinds: ${names.join(', ')}` } };
        }
        const checked = loaded.check(kind, handler.config);
        if ('schemaError' in checked) return { ok: false, problem: { code: 'TM0744', message: `the config schema the plugin ${handler.specifier} exports for ${JSON.stringify(name)} does not compile: ${checked.schemaError}`, hint: 'the plugin is at fault, not the catalog: fix its configSchema' } };
        return { ok: true, kind: name, file: loaded.file, configErrors: checked.errors };
      });
      inspections.set(handler, inspection);
    }
    return inspection;
  };

  /** The kind and its filled config, or the tool's failure saying why it cannot run. */
  const prepare = async (handler: PluginHandler, context: RunContext) => {
    const inspection = await inspect(handler);
    if (!inspection.ok) throw new ToolFailure(`${context.tool.name} cannot run: ${inspection.problem.message} (${handler.file}, run toolman validate)`);
    if (inspection.configErrors.length) {
      throw new ToolFailure(`${context.tool.name} cannot run: its plugin config does not match what ${handler.spec} accepts: ${inspection.configErrors.map((e) => e.message).join('; ')} (${handler.file}, run toolman validate)`);
    }
    let config: Record<string, unknown>;
    try {
      config = fillEnv(handler.config, context.env, context.secrets) as Record<string, unknown>;
    } catch (error) {
      throw new ToolFailure(`${context.tool.name} cannot run: ${describe(error)} (its plugin config names it)`);
    }
    // One runner per kind and config in the worker: the key is a digest, so no secret is kept as a name.
    const configKey = createHash('sha256').update(`${inspection.kind}\u0000${canonicalJson(config)}`).digest('hex');
    return { source: source(handler, inspection.file), target: { plugin: inspection.kind, configKey, config, catalogDir: dirname(handler.catalogFile) } };
  };

  return {
    kind: 'plugin',
    inspect,
    async run(handler, args, context) {
      const { source: where, target } = await prepare(handler, context);
      return workers.run(where, target, args, context);
    },
    start(handler, args, context): YieldStream {
      // Preparing is asynchronous; the stream starts with its first step, so it waits for it there.
      let stream: Promise<YieldStream> | undefined;
      const opened = () => (stream ??= prepare(handler, context).then(({ source: where, target }) => workers.stream(where, target, args, context)));
      return {
        next: async (send) => (await opened()).next(send),
        stop: async () => {
          if (stream) await (await stream.catch(() => undefined))?.stop();
        },
      };
    },
    close: () => workers.close(),
  };
}

function source(handler: PluginHandler, file: string): WorkerSource {
  return { file, label: `plugin ${handler.specifier}` };
}

function isConfigCheck(value: unknown): value is ConfigCheck {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.schemaError === 'string') return true;
  return Array.isArray(record.errors) && record.errors.every((e) => typeof e === 'object' && e !== null && typeof (e as ConfigError).pointer === 'string' && typeof (e as ConfigError).message === 'string');
}

function compile(ajv: AjvInstance, schema: Record<string, unknown>): ValidateFunction | { error: string } {
  try {
    return ajv.compile(schema);
  } catch (error) {
    return { error: describe(error) };
  }
}

/** Each mismatch where it is in the config, said for the catalog's author. */
function configProblems(errors: ErrorObject[]): ConfigError[] {
  const problems = new Map<string, ConfigError>();
  for (const e of errors) {
    let problem: ConfigError;
    const at = configPath(e.instancePath);
    switch (e.keyword) {
      case 'required':
        problem = { pointer: e.instancePath, message: `${at} is missing the required key ${JSON.stringify((e.params as { missingProperty: string }).missingProperty)}` };
        break;
      case 'additionalProperties': {
        const key = (e.params as { additionalProperty: string }).additionalProperty;
        const known = Object.keys(((e.parentSchema as Record<string, unknown> | undefined)?.properties ?? {}) as object);
        const near = closest(key, known);
        problem = { pointer: `${e.instancePath}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: `${at} has an unknown key ${JSON.stringify(key)}` + (near ? `; did you mean ${JSON.stringify(near)}?` : known.length ? `; allowed: ${known.join(', ')}` : ''), part: 'key' };
        break;
      }
      case 'enum':
        problem = { pointer: e.instancePath, message: `${at} must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}${got(e.data)}` };
        break;
      default:
        problem = { pointer: e.instancePath, message: `${at} ${e.message ?? 'does not match the schema'}${got(e.data)}` };
    }
    problems.set(`${problem.pointer}\u0000${problem.message}`, problem);
  }
  return [...problems.values()];
}

/** `/a/0/b` → `config.a[0].b`. */
function configPath(pointer: string): string {
  return (
    'config' +
    pointer
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
      .join('')
  );
}

const got = (value: unknown) => (value === undefined || (typeof value === 'object' && value !== null) ? '' : ` (got ${JSON.stringify(value)?.slice(0, 60)})`);

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
