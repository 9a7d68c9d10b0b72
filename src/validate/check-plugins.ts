import type { Diagnostic } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { Reporter } from '../catalog/reporter.js';
import type { ParseCache } from '../catalog/parse-cache.js';
import type { PluginHandler } from '../catalog/types.js';
import { rememberedFindings, rememberFindings } from './remembered-checks.js';

/**
 * What a plugin makes of a handler (the plugin runner's `inspect`, execute/runners/plugin-runner.ts;
 * said here as a shape, since checks do not reach into the runners): the kind it runs and what is
 * wrong with its config, or why the plugin cannot be used.
 */
export interface PluginInspector {
  inspect(handler: PluginHandler): Promise<
    | { ok: true; configErrors: { pointer: string; message: string; part?: 'key' }[] }
    | { ok: false; problem: { code: 'TM0740' | 'TM0741' | 'TM0742' | 'TM0744'; message: string; hint?: string } }
  >;
}

/**
 * Every plugin handler's findings, loading each plugin once (in its worker): a plugin that cannot
 * be found or used, an unknown kind, a config schema that does not compile (at `plugin:`), and
 * each way the config does not match the kind's schema (at the key or value in `config:`). The
 * findings are new diagnostics; the loaded catalog is not changed.
 */
export async function checkPlugins(loaded: LoadedCatalog, inspector: PluginInspector, cache?: ParseCache): Promise<Diagnostic[]> {
  const found: Diagnostic[] = [];
  const reporters = new Map<string, Reporter>();
  const reporterOf = (file: string): Reporter | undefined => {
    let reporter = reporters.get(file);
    const source = loaded.sources.get(file);
    if (!reporter && source) reporters.set(file, (reporter = new Reporter(source, found)));
    return reporter;
  };
  // A handler an override sets on several tools is one place in one file: checked once, reported once.
  const handlers = new Map<string, PluginHandler>();
  for (const tool of loaded.catalog.tools) {
    const handler = tool.handler;
    if (handler?.kind !== 'plugin' || !handler.specifier || (!handler.pluginKind && handler.spec.includes('#'))) continue;
    const place = `${handler.file}\u0000${handler.pointer}`;
    if (!handlers.has(place)) handlers.set(place, handler);
  }
  const inspections = await Promise.all([...handlers.values()].map(async (handler) => ({ handler, inspection: await inspector.inspect(handler) })));
  // The plugins are asked on every run; what they answered is placed in the files as before when
  // it is what they answered then (`cache`: the findings cache, for the catalog as loaded).
  const inputs = cache ? JSON.stringify(inspections.map(({ handler, inspection }) => [handler.file, handler.pointer, handler.specifier, inspection])) : '';
  const remembered = cache ? rememberedFindings(loaded, cache, inputs) : undefined;
  if (remembered) return remembered;
  for (const { handler, inspection } of inspections) {
    const reporter = reporterOf(handler.file);
    if (!reporter) continue;
    if (!inspection.ok) {
      reporter.report(inspection.problem.code, `${handler.pointer}/plugin`, inspection.problem.message, inspection.problem.hint ? { hint: inspection.problem.hint } : {});
      continue;
    }
    for (const error of inspection.configErrors) {
      reporter.report('TM0743', `${handler.pointer}/config${error.pointer}`, error.message, {
        ...(error.part ? { part: error.part } : {}),
        hint: `the plugin ${handler.specifier} defines what its config takes (its configSchema)`,
      });
    }
  }
  if (cache) rememberFindings(loaded, cache, inputs, found);
  return found;
}
