import { reporterFor } from './check-tools.js';
import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { GEMINI_MAX_DECLARATIONS } from '../providers/gemini/gemini-facts.js';
import { toGeminiSchema } from '../providers/gemini/gemini-schema.js';
import { OPENAI_CHAT_MAX_TOOLS } from '../providers/openai/openai-facts.js';
import { toOpenAiStrict } from '../providers/openai/openai-strict-schema.js';
import { PROVIDER_LABELS } from '../providers/types.js';
import { profileNames } from '../select/resolve-profile.js';
import { profileSelection } from './profile-selection.js';

/** Per-request tool limits, named by the providers' labels (`format` shows each finding for the provider it names). */
const TOOL_LIMITS = [
  { provider: PROVIDER_LABELS.openai, limit: OPENAI_CHAT_MAX_TOOLS },
  { provider: PROVIDER_LABELS.gemini, limit: GEMINI_MAX_DECLARATIONS },
] as const;

/**
 * Provider compatibility, judged by the same converters the formatters run (so `validate` and
 * `format` never disagree): OpenAI strict mode (TM0401, TM0402), Gemini's schema subset (TM0403,
 * TM0404), and per profile the number of tools sent up front (TM0405).
 */
export function checkProviders(loaded: LoadedCatalog, rootFile: string | undefined): void {
  for (const tool of loaded.catalog.tools) {
    if (tool.source.kind !== 'catalog' && tool.source.kind !== 'mcp') continue;
    const reporter = reporterFor(loaded, tool);
    if (!reporter) continue;
    const base = [...segmentsOf(tool.source.pointer), 'parameters'];
    const strict = toOpenAiStrict(tool.parameters);
    if (!strict.strict) {
      reporter.report('TM0402', pointerOf([...base, ...strict.path]), `OpenAI strict mode is impossible (${strict.reason}); the tool will be sent with strict: false`);
    } else if (strict.restated.length) {
      const keywords = [...new Set(strict.restated.map((r) => r.keyword))];
      reporter.report('TM0401', pointerOf([...base, ...strict.restated[0]!.path]), `OpenAI strict mode does not support ${keywords.map((k) => `"${k}"`).join(', ')}; the formatter will move these constraints into the description`, {
        part: 'key',
      });
    }
    const gemini = toGeminiSchema(tool.parameters);
    if (!gemini.ok) {
      reporter.report('TM0403', pointerOf([...base, ...gemini.path]), `${gemini.reason}, so the gemini formatter will not send this tool (--gemini-json-schema sends full JSON Schema instead)`);
    } else {
      for (const lossy of gemini.lossyEnums) {
        reporter.report('TM0404', pointerOf([...base, ...lossy.path]), `Gemini enums are strings; this enum mixes ${lossy.kinds.join(', ')}, so values will be sent as strings and the type is lost`);
      }
    }
  }

  // Tool counts per request: what each profile sends up front (active tools plus the meta-tool).
  const rootReporter = rootFile ? loaded.reporters.get(rootFile) : undefined;
  for (const name of profileNames(loaded.catalog)) {
    let selection;
    try {
      selection = profileSelection(loaded.catalog, name);
    } catch {
      continue; // unknown extends and cycles are reported by the profile checks
    }
    const sent = selection.active.length + (selection.deferred.length ? 1 : 0);
    const profile = loaded.catalog.profiles.get(name);
    const reporter = profile ? loaded.reporters.get(profile.file) : rootReporter;
    if (!reporter) continue;
    for (const { provider, limit } of TOOL_LIMITS) {
      if (sent <= limit) continue;
      reporter.report('TM0405', profile ? profile.pointer : '/tools', `profile ${name} sends ${sent} tools up front; ${provider} takes at most ${limit} per request`, {
        part: 'key',
        subject: '',
        hint: "defer some tools (defer_loading, a profile's defer, or defer: auto) so tool_search loads them on demand",
      });
    }
  }
}
