import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { HandlerKind, Tool } from '../catalog/types.js';
import { fieldPlace } from './check-result-handling.js';
import { reporterFor } from './check-tools.js';

/** Handler kinds whose runners can run a tool as a generator (ToolRunner.start). */
const YIELDING_KINDS: ReadonlySet<HandlerKind> = new Set<HandlerKind>(['module', 'plugin', 'mock']);

/**
 * Stateful tools (`mode: stateful`) and plugin handlers, as far as the catalog alone tells:
 * a stateful tool needs a handler that can yield (TM0731) and cannot take control (TM0732) or be
 * exclusive (TM0734), and what applies to a direct call's result is not applied to its job reports
 * (TM0736); mock `yields` need a stateful tool (TM0733); a plugin names a package and a
 * kind (TM0735). A plugin's config is checked against its schema by `checkPlugins`, which loads it.
 */
export function checkStateful(loaded: LoadedCatalog): void {
  for (const tool of loaded.catalog.tools) {
    const { source } = tool;
    if (source.kind === 'meta') continue;
    const reporter = reporterFor(loaded, tool);
    if (!reporter) continue;
    const at = (...path: (string | number)[]) => pointerOf([...segmentsOf(source.pointer), ...path]);
    const { handler } = tool;
    if (tool.mode === 'stateful') {
      if (!handler || !YIELDING_KINDS.has(handler.kind)) {
        const what = !handler ? 'this tool has no handler' : handler.kind === 'agent' ? 'this tool is a sub-agent' : `this tool has ${/^[aeiou]/.test(handler.kind) ? 'an' : 'a'} ${handler.kind} handler`;
        reporter.report('TM0731', at('mode'), `mode: stateful needs a handler that can yield (module, plugin or mock), and ${what}`, {
          hint: 'make the handler a module whose export is an async generator (async function*), or use mode: background for a result collected later',
        });
      }
      if (tool.takesControl) {
        reporter.report('TM0732', at('takes_control'), 'a tool that takes control cannot be stateful: its first answer ends the turn, so its later yields could never be read', {
          hint: 'drop takes_control, or use mode: direct',
        });
      }
      if (tool.exclusive) {
        reporter.report('TM0734', at('exclusive'), 'an exclusive tool is the only tool offered, so job_next and job_stop are not: its later yields could not be read', {
          hint: 'drop exclusive, or use mode: direct',
        });
      }
      reportResultRules(loaded, tool);
    }
    if (handler?.kind === 'mock' && tool.mode !== 'stateful' && source.kind === 'catalog') {
      handler.cases.forEach((mockCase, i) => {
        if (mockCase.yields === undefined) return;
        reporter.report('TM0733', at('handler', 'mock', i, 'yields'), `mock case ${i} has yields, but the tool is not mode: stateful, so only its result is used`, {
          part: 'key',
          hint: 'add mode: stateful to the tool, or remove yields',
        });
      });
    }
    if (handler?.kind === 'plugin' && (handler.specifier === '' || (handler.pluginKind === '' && handler.spec.includes('#')))) {
      const written = loaded.reporters.get(handler.file) ?? reporter;
      written.report('TM0735', `${handler.pointer}/plugin`, `plugin ${JSON.stringify(handler.spec)} names ${handler.specifier === '' ? 'no package' : 'no kind after #'}`, {
        hint: 'write package#kind (a package the catalog\'s folder can import) or ./path/to/plugin#kind; without #kind, the plugin\'s only kind',
      });
    }
  }
}

/**
 * A stateful call answers with job reports (its yields, then its result, read with job_next),
 * never with one result, so what applies to a result is not applied: the output schema, the
 * references, the checks `on: result`, and a summary (yields are cut with `smart`). Each field is
 * reported where it was written (the tool, or the override that set it).
 */
function reportResultRules(loaded: LoadedCatalog, tool: Tool): void {
  const hint = 'a stateful tool\'s yields and result reach the model as they are (redacted and cut); check them in the generator, or use mode: direct';
  const report = (field: string, path: (string | number)[], what: string, note = '') => {
    const at = fieldPlace(loaded, tool, field);
    at?.reporter.report('TM0736', at.pointer(path), `${what} is not applied to a stateful tool: its calls answer with job reports (yields, then a result, read with job_next)${note}`, { ...(path.length ? {} : { part: 'key' as const }), ...(at.subject ? { subject: at.subject } : {}), hint });
  };
  if (tool.outputSchema) report('output_schema', [], 'output_schema');
  if (tool.references) report('references', [], 'references');
  if (tool.truncation === 'summarize') report('truncation', [], 'truncation: summarize', '; its yields are cut with smart');
  (tool.evaluation ?? []).forEach((name, i) => {
    if (loaded.catalog.evaluations.get(name)?.on === 'result') report('evaluation', [i], `the result check ${JSON.stringify(name)} (on: result)`);
  });
}
