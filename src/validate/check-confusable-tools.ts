import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Tool } from '../catalog/types.js';
import { confusablePairs, type ConfusablePair } from './confusable-pairs.js';
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
  // Tools that all read alike (a family of near-copies) are one finding, not one per pair:
  // group the pairs into connected sets and report each set once, at its first tool.
  const order = new Map(catalog.tools.map((t, i) => [t.name, i]));
  const parent = new Map<string, string>();
  const root = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const { pair } of found.values()) {
    const [ra, rb] = [root(pair.a), root(pair.b)];
    if (ra !== rb) parent.set((order.get(ra) ?? 0) < (order.get(rb) ?? 0) ? rb : ra, (order.get(ra) ?? 0) < (order.get(rb) ?? 0) ? ra : rb);
  }
  const groups = new Map<string, { pairs: { pair: ConfusablePair; profiles: string[] }[] }>();
  for (const entry of found.values()) {
    const r = root(entry.pair.a);
    const group = groups.get(r) ?? { pairs: [] };
    group.pairs.push(entry);
    groups.set(r, group);
  }
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  for (const [first, { pairs }] of groups) {
    const tool = byName.get(first);
    if (!tool || tool.source.kind !== 'catalog') continue;
    const reporter = loaded.reporters.get(tool.source.file);
    if (!reporter) continue;
    pairs.sort((x, y) => y.pair.score - x.pair.score);
    const best = pairs.find((p) => p.pair.a === first || p.pair.b === first) ?? pairs[0]!;
    const { pair } = best;
    const closest = pair.a === first ? pair.b : pair.a;
    const members = [...new Set(pairs.flatMap((p) => [p.pair.a, p.pair.b]))].filter((n) => n !== first).sort((x, y) => (order.get(x) ?? 0) - (order.get(y) ?? 0));
    const profiles = [...new Set(pairs.flatMap((p) => p.profiles))];
    const where = catalog.profiles.size ? ` in profile${profiles.length === 1 ? '' : 's'} ${profiles.slice(0, 3).join(', ')}${profiles.length > 3 ? ', …' : ''}` : '';
    const evidence = [`text similarity ${pair.text_score}`, pair.parameter_overlap === null ? null : `parameter overlap ${pair.parameter_overlap}`, pair.shared_words.length ? `shared words: ${pair.shared_words.slice(0, 5).join(', ')}` : null, pair.distinct_by ? `told apart only by ${pair.distinct_by}` : null].filter(Boolean).join('; ');
    const whom = members.length === 1 ? members[0]! : `${members.slice(0, 4).join(', ')}${members.length > 4 ? ` and ${members.length - 4} more` : ''} (${members.length + 1} tools that read alike)`;
    reporter.report('TM1001', `${tool.source.pointer}/${tool.description !== undefined ? 'description' : 'name'}`, `a model may confuse it with ${whom}${where} (${members.length === 1 ? '' : `closest: ${closest}, `}score ${pair.score}: ${evidence})`, {
      hint: `say in each description when to use it rather than the other${members.length > 1 ? 's' : ''}, merge them, or keep them out of the same profile`,
    });
  }
}
