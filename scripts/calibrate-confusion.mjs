// Calibrates the confusable-tools threshold (TM1001) on ../shared/data. Ground truth, as a proxy
// for "a model would mix these up": BFCL's labelled queries (1,251 queries over its 1,853
// functions), where a query's gold function is not the search engine's first answer, the pair
// {gold, first answer} counts as confused. For each threshold it prints how many pairs are
// flagged, the share of flagged pairs that are confused (precision) and the share of confused
// pairs flagged (recall); and, on GitHub's 117 tools, the pairs flagged, to read by hand.
//   node scripts/calibrate-confusion.mjs   (after: toolman import ... -o /tmp/X.yaml, see below)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForScript } from './bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
// As the tests find it: ../shared/data, else the copy kept in test/fixtures/real-data.
const data = process.env.TOOLMAN_REAL_DATA ?? (existsSync(join(root, '..', 'shared', 'data', 'mcp')) ? join(root, '..', 'shared', 'data') : join(root, 'test', 'fixtures', 'real-data'));
const out = mkdtempSync(join(tmpdir(), 'toolman-calibrate-'));
const bin = join(root, 'bin', 'toolman.js');
const imported = (file, name) => {
  const target = join(out, `${name}.yaml`);
  execFileSync(process.execPath, [bin, 'import', join(data, file), '-o', target, '--force'], { stdio: 'ignore' });
  return target;
};
const bundle = await bundleForScript('calibrate-confusion', [
  "export { confusablePairs } from './src/search/confusable-tools.ts';",
  "export { loadCatalog } from './src/catalog/load-catalog.ts';",
  "export { ToolSearch } from './src/search/tool-search.ts';",
]);
const { confusablePairs, loadCatalog, ToolSearch } = await import(bundle);
const thresholds = [0.5, 0.6, 0.65, 0.7, 0.72, 0.75, 0.8];

// BFCL: confused pairs from retrieval.
const bfcl = loadCatalog([imported('bfcl/functions.json', 'bfcl')]).catalog;
const byName = new Map();
for (const t of bfcl.tools) for (const n of [t.name, ...t.aliases]) byName.set(n, t.name);
const engine = new ToolSearch(bfcl.tools);
const confused = new Set();
const key = (a, b) => [a, b].sort().join('\u0000');
for (const line of readFileSync(join(data, 'bfcl', 'queries.dev.jsonl'), 'utf8').split('\n').filter(Boolean)) {
  const q = JSON.parse(line);
  const first = engine.search(q.query, { limit: 1 })[0]?.tool.name;
  for (const g of q.gold) {
    const gold = byName.get(g);
    if (gold && first && first !== gold && !q.gold.some((x) => byName.get(x) === first)) confused.add(key(gold, first));
  }
}
const scored = confusablePairs(bfcl.tools, { threshold: 0 });
const n = bfcl.tools.length;
console.log(`BFCL: ${n} tools, ${(n * (n - 1)) / 2} pairs; ${confused.size} pairs confused by retrieval (gold not first)`);
for (const t of thresholds) {
  const flagged = scored.filter((p) => p.score >= t);
  const hits = flagged.filter((p) => confused.has(key(p.a, p.b))).length;
  console.log(`  threshold ${t}: ${flagged.length} flagged, precision ${(100 * hits / Math.max(1, flagged.length)).toFixed(1)}%, recall ${(100 * hits / confused.size).toFixed(1)}%`);
}
const base = scored.filter((p) => confused.has(key(p.a, p.b))).length;
console.log(`  (any scored pair: ${scored.length} pairs, of which ${base} confused; a random pair is confused with probability ${(100 * confused.size / ((n * (n - 1)) / 2)).toFixed(3)}%)`);

for (const [file, name] of [['mcp/github-mcp-server.toolsnaps.json', 'github'], ['mcp/playwright-mcp.default.json', 'playwright'], ['mcp/server-filesystem.json', 'filesystem'], ['mcp/server-memory.json', 'memory'], ['mcp/server-everything.json', 'everything']]) {
  const tools = loadCatalog([imported(file, name)]).catalog.tools;
  const pairs = confusablePairs(tools, { threshold: 0 });
  const m = tools.length;
  console.log(`\n${name}: ${m} tools, ${(m * (m - 1)) / 2} pairs; flagged at ${thresholds.map((t) => `${t}: ${pairs.filter((p) => p.score >= t).length}`).join(', ')}`);
  for (const p of pairs.filter((p) => p.score >= 0.6)) console.log(`  ${p.score.toFixed(2)} ${p.a} ~ ${p.b} (text ${p.text_score}, parameters ${p.parameter_overlap}, names ${p.name_overlap})`);
}
