// The cost of validate's verdict rules (issue 20) on catalogs/large.yaml, against the whole
// `toolman validate` process. `validate` runs each rule once per process, cold, after the older
// checks have warmed the helpers they share; so the figure that counts is an A/B: the checks as
// `validate` runs them (runChecks, the rule settings, the description-quality score), in fresh
// processes, with the new rules and with them stubbed out, the two interleaved. The difference
// is what the rules add. CPU time throughout (the machine is shared; wall time would count the
// waits for a core). Each rule's warm cost (median of many calls in one process) is shown too.
// The whole process is timed with the cache off: a warm `validate` takes its findings from the
// cache and runs no rule at all, so it is no denominator for what a rule costs when it runs.
//   node bench/validate-rules.mjs [--quick]
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const ENTRY = [
  "export { loadCatalog } from './src/catalog/load-catalog.ts';",
  "export { runChecks, withRuleSettings } from './src/validate/validate-catalog.ts';",
  "export { checkPoisoning } from './src/validate/check-poisoning.ts';",
  "export { checkDescriptionQuality, descriptionQuality } from './src/validate/description-quality.ts';",
  "export { checkClients } from './src/validate/check-clients.ts';",
  "export { checkSchemaSanity } from './src/validate/check-schema-sanity.ts';",
  "export { checkConfusableTools } from './src/validate/check-confusable-tools.ts';",
  "export { segmentsOf } from './src/catalog/diagnostic.ts';",
].join('\n');

/** The new rules' modules, each replaced by one that does nothing. */
const STUBS = {
  'check-poisoning': 'export function checkPoisoning() {}',
  'check-clients': 'export function checkClients() {}',
  'check-schema-sanity': 'export function checkSchemaSanity() {}\nexport function checkSchemaNode() {}',
  'description-quality': 'export function checkDescriptionQuality() {}\nexport function descriptionQuality() { return { score: null, tools: [] }; }',
  'check-confusable-tools': 'export const MAX_CONFUSION_TOOLS = 300;\nexport function checkConfusableTools() {}',
};
/** Which modules each variant stubs: the new rules of issue 20, or the confusable-tools rule alone (TM1001 with its thesaurus). */
const STUBBED = {
  'new-rules': /\/(check-poisoning|check-clients|check-schema-sanity|description-quality)\.(js|ts)$/,
  confusable: /\/(check-confusable-tools)\.(js|ts)$/,
};

async function bundle(name, stubbed) {
  const dir = join(root, 'node_modules', '.cache', 'toolman-build');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${name}.mjs`);
  const plugins = stubbed
    ? [{
        name: 'stub-new-rules',
        setup(b) {
          b.onResolve({ filter: STUBBED[stubbed] }, (args) => ({ path: /([a-z-]+)\.(js|ts)$/.exec(args.path)[1], namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, (args) => ({ contents: STUBS[args.path], loader: 'js' }));
        },
      }]
    : [];
  await build({
    stdin: { contents: ENTRY, resolveDir: root, loader: 'ts' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    plugins,
    banner: { js: "import { createRequire as __toolmanRequire } from 'node:module'; const require = __toolmanRequire(import.meta.url);" },
  });
  return outfile;
}

/** The process's CPU time (user + system, all threads) on exit: on a busy machine, wall time counts waiting for a core. */
const CPU_REPORTER = `data:text/javascript,${encodeURIComponent("import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); writeSync(2, `\\nBENCH_CPU_US=${u.userCPUTime + u.systemCPUTime}\\n`); });")}`;

export async function validateRulesBench({ quick = false } = {}) {
  const runs = quick ? 7 : 31;
  const inProcess = quick ? 20 : 100;
  const full = await bundle('bench-validate-rules', false);
  const without = await bundle('bench-validate-rules-without', 'new-rules');
  const withoutConfusable = await bundle('bench-validate-rules-without-confusable', 'confusable');
  const child = (file, mode) => {
    const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file, mode], { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bench child failed: ${result.stderr}`);
    return JSON.parse(result.stdout).ms;
  };
  // Interleaved, so that a busy moment of the machine falls on both.
  const samples = { with: [], without: [], withoutConfusable: [], withQuality: [], whole: [] };
  for (let i = 0; i < runs; i++) {
    samples.without.push(child(without, 'default'));
    samples.withoutConfusable.push(child(withoutConfusable, 'default'));
    samples.with.push(child(full, 'default'));
    samples.withQuality.push(child(full, 'quality'));
    const whole = spawnSync(process.execPath, ['--import', CPU_REPORTER, join(root, 'bin', 'toolman.js'), 'validate', 'catalogs/large.yaml'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' } });
    samples.whole.push(Number(/BENCH_CPU_US=(\d+)/.exec(whole.stderr)[1]) / 1000);
  }
  const whole = median(samples.whole);
  const added = median(samples.with.map((ms, i) => ms - samples.without[i]));
  const addedQuality = median(samples.withQuality.map((ms, i) => ms - samples.without[i]));
  const confusable = median(samples.with.map((ms, i) => ms - samples.withoutConfusable[i]));

  // Warm: each rule alone, many calls on one loaded catalog.
  const m = await import(full);
  const loaded = m.loadCatalog([join(root, 'catalogs', 'large.yaml')], { cwd: root });
  const before = loaded.diagnostics.length;
  const time = (fn) => {
    const out = [];
    for (let i = 0; i < inProcess; i++) {
      const started = process.cpuUsage();
      fn();
      const used = process.cpuUsage(started);
      out.push((used.user + used.system) / 1000);
      loaded.diagnostics.length = before;
    }
    return median(out);
  };
  const warm = {
    'poisoning (TM1201-TM1206)': time(() => m.checkPoisoning(loaded)),
    'schema sanity (TM0310-TM0311)': time(() => {
      for (const tool of loaded.catalog.tools) if (tool.source.kind === 'catalog') m.checkSchemaSanity(tool.parameters, [...m.segmentsOf(tool.source.pointer), 'parameters'], loaded.reporters.get(tool.source.file));
    }),
    'description quality score': time(() => m.descriptionQuality(loaded.catalog)),
    'description quality rules (TM1101-TM1105, --quality)': time(() => m.checkDescriptionQuality(loaded)),
    'client limits, --client vscode --client windsurf': time(() => m.checkClients(loaded, ['vscode', 'windsurf'])),
    'confusable tools (TM1001, redone)': time(() => m.checkConfusableTools(loaded)),
  };
  return {
    validate_large_ms: whole,
    checks_without_new_rules_ms: median(samples.without),
    checks_with_new_rules_ms: median(samples.with),
    new_rules_ms: added,
    new_rules_share: added / whole,
    new_rules_with_quality_ms: addedQuality,
    new_rules_with_quality_share: addedQuality / whole,
    confusable_ms: confusable,
    confusable_share: confusable / whole,
    warm_ms: warm,
  };
}

if (process.argv[2] === '--child') {
  const m = await import(process.argv[3]);
  const loaded = m.loadCatalog([join(root, 'catalogs', 'large.yaml')], { cwd: root });
  // What validate does after loading: every check, the rule settings (--quality turns the
  // description-quality rules on), and the score its output carries.
  const rules = new Map(process.argv[4] === 'quality' ? ['TM1101', 'TM1102', 'TM1103', 'TM1104', 'TM1105'].map((code) => [code, 'info']) : []);
  // CPU time, not wall time: on a busy machine a process waits for a core, which is not the rules' cost.
  const started = process.cpuUsage();
  const checked = m.runChecks(loaded);
  m.withRuleSettings(loaded, checked, rules);
  m.descriptionQuality(loaded.catalog);
  const used = process.cpuUsage(started);
  process.stdout.write(JSON.stringify({ ms: (used.user + used.system) / 1000 }));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await validateRulesBench({ quick: process.argv.includes('--quick') });
  const pct = (share) => `${(100 * share).toFixed(1)}%`;
  console.log(`toolman validate catalogs/large.yaml, whole process, CPU (median)   ${r.validate_large_ms.toFixed(1)} ms`);
  console.log(`  validate's checks, new rules stubbed out / with them (medians)    ${r.checks_without_new_rules_ms.toFixed(1)} / ${r.checks_with_new_rules_ms.toFixed(1)} ms`);
  console.log(`  the new rules add (median of paired differences)                  ${r.new_rules_ms.toFixed(1)} ms = ${pct(r.new_rules_share)} of validate`);
  console.log(`  with --quality (TM1101-TM1105 on)                                 ${r.new_rules_with_quality_ms.toFixed(1)} ms = ${pct(r.new_rules_with_quality_share)}`);
  console.log(`  the confusable-tools rule, thesaurus included, adds (cold)          ${r.confusable_ms.toFixed(1)} ms = ${pct(r.confusable_share)} of validate`);
  console.log('  each rule warm, CPU (median of many calls in one process):');
  for (const [name, ms] of Object.entries(r.warm_ms)) console.log(`    ${name.padEnd(56)} ${ms.toFixed(2).padStart(7)} ms`);
}
