import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Tool } from '../catalog/types.js';
import { confusablePairs, type ConfusablePair } from '../search/confusable-tools.js';
import { selectTools } from '../select/select-tools.js';

/**
 * Selections larger than this are not compared: the check searches once per tool, and a model is
 * rarely offered more tools than this at once (OpenAI takes 128 per request).
 */
export const MAX_CONFUSION_TOOLS = 300;

/**
 * TM1001: pairs of tools that one selection (a profile, or the whole catalog without profiles)
 * offers together and that a model is likely to confuse, measured with the search engine (each
 * tool's text as a query against the others) and parameter overlap. One finding per pair, at the
 * first tool's description, naming the other, the profiles and the evidence.
 */
export function checkConfusableTools(loaded: LoadedCatalog): void {
  const { catalog } = loaded;
  const selections: { profile: string; tools: Tool[] }[] = [];
  const names = catalog.profiles.size ? [...catalog.profiles.keys()] : [undefined];
  for (const profile of names) {
    try {
      const s = selectTools(catalog, profile ? { profile } : {});
      selections.push({ profile: profile ?? s.profile.name, tools: [...s.active, ...s.deferred].filter((t) => t.source.kind === 'catalog') });
    } catch {
      // A broken profile is reported by the profile checks.
    }
  }
  const found = new Map<string, { pair: ConfusablePair; profiles: string[] }>();
  const done = new Map<string, ConfusablePair[]>();
  // A pair's score does not depend on the other tools offered (beyond which ones share the index),
  // so when every selection fits, one pass over all their tools serves them all.
  const union = [...new Map(selections.flatMap((s) => s.tools).map((t) => [t.name, t])).values()];
  const shared = union.length <= MAX_CONFUSION_TOOLS ? confusablePairs(union) : undefined;
  for (const { profile, tools } of selections) {
    if (tools.length < 2 || tools.length > MAX_CONFUSION_TOOLS) continue;
    const key = tools.map((t) => t.name).sort().join('\n');
    let pairs = done.get(key);
    if (!pairs) {
      const offered = new Set(tools.map((t) => t.name));
      done.set(key, (pairs = shared ? shared.filter((p) => offered.has(p.a) && offered.has(p.b)) : confusablePairs(tools)));
    }
    for (const pair of pairs) {
      const id = `${pair.a}\u0000${pair.b}`;
      const seen = found.get(id);
      if (seen) seen.profiles.push(profile);
      else found.set(id, { pair, profiles: [profile] });
    }
  }
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  for (const { pair, profiles } of found.values()) {
    const tool = byName.get(pair.a);
    if (!tool || tool.source.kind !== 'catalog') continue;
    const reporter = loaded.reporters.get(tool.source.file);
    if (!reporter) continue;
    const where = catalog.profiles.size ? ` in profile${profiles.length === 1 ? '' : 's'} ${profiles.slice(0, 3).join(', ')}${profiles.length > 3 ? ', …' : ''}` : '';
    const evidence = [`text similarity ${pair.text_score}`, pair.parameter_overlap === null ? null : `parameter overlap ${pair.parameter_overlap}`, pair.shared_words.length ? `shared words: ${pair.shared_words.slice(0, 5).join(', ')}` : null].filter(Boolean).join('; ');
    reporter.report('TM1001', `${tool.source.pointer}/${tool.description !== undefined ? 'description' : 'name'}`, `a model may confuse it with ${pair.b}${where} (score ${pair.score}: ${evidence})`, {
      hint: `say in each description when to use it rather than ${pair.b} (and the other way round), merge the two, or keep them out of the same profile`,
    });
  }
}
