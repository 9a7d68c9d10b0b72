// Scores the confusable-tools rule (TM1001) on its labelled set, test/fixtures/confusable/
// labelled-set.yaml: paraphrases found (recall) and related-but-distinct pairs flagged, per split
// and per selection size, and the pairs it gets wrong on the tuning half. docs/testing.md has the
// figures and how the set was built.
//   node scripts/evaluate-confusion.mjs              development parts (tune, dev): figures and mistakes
//   node scripts/evaluate-confusion.mjs --holdout    and the held-out part (once the rule is final)
//   node scripts/evaluate-confusion.mjs --search     search settings on the development parts
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleForScript } from './bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
// Where the bundled test helper finds the set and the real data (as the tests do).
process.env.TOOLMAN_FIXTURES ??= join(root, 'test', 'fixtures');
process.env.TOOLMAN_REAL_DATA ??= existsSync(join(root, '..', 'shared', 'data', 'mcp')) ? join(root, '..', 'shared', 'data') : join(root, 'test', 'fixtures', 'real-data');

const bundle = await bundleForScript('evaluate-confusion', [
  "export * from './test/helpers/confusable-labelled-set.ts';",
  "export { CONFUSABLE_SETTINGS } from './src/validate/confusable-pairs.ts';",
]);
const { labelledPairs, scoreLabelledSet, metrics, CONFUSABLE_SETTINGS } = await import(bundle);
const args = process.argv.slice(2);
const pairs = labelledPairs();
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const line = (label, m) => `${label.padEnd(22)} paraphrases ${String(m.found).padStart(3)}/${String(m.paraphrases).padEnd(3)} (${pct(m.recall)})   distinct flagged ${String(m.falseFlags).padStart(2)}/${String(m.distinct).padEnd(3)} (${pct(m.falseFlagRate)}, 1 in ${m.falseFlags ? (m.distinct / m.falseFlags).toFixed(1) : '∞'})`;

if (args.includes('--search')) {
  const tune = pairs.filter((p) => p.split !== 'holdout');
  const grid = {
    parameterWeight: [0.5, 0.6, 0.7],
    parameterTextFloor: [0.2, 0.3, 0.4],
    cosineShare: [0.5, 0.7],
    idfPrior: [10, 20],
    oneSidedObject: [0.8, 0.9],
  };
  const thresholds = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65];
  const results = [];
  const keys = Object.keys(grid);
  const walk = (i, settings) => {
    if (i === keys.length) {
      // Scores do not depend on the threshold: score once, flag at each.
      const scored = scoreLabelledSet(tune, { ...settings, threshold: 0 });
      for (const threshold of thresholds) results.push({ settings: { ...settings, threshold }, m: metrics(scored.map((o) => ({ ...o, flagged: o.score >= threshold }))) });
      return;
    }
    for (const value of grid[keys[i]]) walk(i + 1, { ...settings, [keys[i]]: value });
  };
  walk(0, {});
  // Best recall with at most one false flag in 15 distinct pairs on the tuning half (a margin under the 1 in 12 target).
  results.sort((x, y) => (y.m.falseFlagRate <= 1 / 15) - (x.m.falseFlagRate <= 1 / 15) || y.m.recall - x.m.recall || x.m.falseFlagRate - y.m.falseFlagRate);
  for (const r of results.slice(0, 20)) console.log(line(JSON.stringify(r.settings), r.m));
  process.exit(0);
}

const splits = args.includes('--holdout') ? ['tune', 'dev', 'dev2', 'holdout'] : ['tune', 'dev', 'dev2'];
console.log(`settings: ${JSON.stringify(CONFUSABLE_SETTINGS)}\n`);
for (const split of splits) {
  const outcomes = scoreLabelledSet(pairs.filter((p) => p.split === split));
  console.log(line(`${split}`, metrics(outcomes)));
  for (const size of ['small', 'medium', 'large']) {
    const part = outcomes.filter((o) => o.size === size);
    console.log(line(`  ${size} (${Math.min(...part.map((o) => o.tools))}-${Math.max(...part.map((o) => o.tools))} tools)`, metrics(part)));
  }
  if (split !== 'holdout' || args.includes('--verbose')) {
    for (const o of outcomes.filter((x) => (x.pair.label === 'paraphrase') !== x.flagged)) {
      console.log(`    ${o.pair.label === 'paraphrase' ? 'missed ' : 'flagged'} ${o.size.padEnd(6)} ${o.score.toFixed(2)} ${o.pair.id}${o.distinctBy ? ` (${o.distinctBy})` : ''}`);
    }
  }
  console.log();
}
