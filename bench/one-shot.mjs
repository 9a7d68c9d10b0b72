// One-shot commands, whole process (spawn to exit), against `node -e 0` measured in the same
// rounds: each round runs `node -e 0` and every command once, in turn, so a machine shared with
// other work slows them alike. Medians per command of `runs` rounds. Each command is measured
//  - warm: toolman's cache (parsed files, verdicts, findings, token counts) filled by a run before
//    the rounds, as on any machine after the first run;
//  - first run: a new, empty cache folder each time (nothing remembered).
// Commands that talk to a model do so with the tests' scripted server (no network; its replies
// carry usage, as the APIs' do).
// Where NODE_EXTRA_CA_CERTS is set (this project's machines set it), every Node process reads that
// certificate file at start (about 30 ms here), `node -e 0` and toolman alike, which lowers every
// ratio: each round then also runs `node -e 0` and every warm command without it, and the rows say
// both (`warm_without_extra_ca`).
//   node bench/one-shot.mjs [--runs N]
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin', 'toolman.js');

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Two versions of catalogs/large.yaml in `dir`: several tools changed (one breaking). */
export function largeCatalogVersions(dir) {
  const v2 = join(dir, 'large-v2');
  mkdirSync(join(v2, 'large'), { recursive: true });
  // large.yaml includes the other shipped catalogs.
  for (const file of readdirSync(join(root, 'catalogs')).filter((f) => f.endsWith('.yaml'))) copyFileSync(join(root, 'catalogs', file), join(v2, file));
  for (const file of readdirSync(join(root, 'catalogs', 'large'))) {
    let text = readFileSync(join(root, 'catalogs', 'large', file), 'utf8');
    if (file === 'billing.yaml') text = text.replace('required: [account_id]', 'required: [account_id, status]');
    if (file === 'crm.yaml') text = text.replace(/description: ([^\n]+)/, 'description: $1 Updated wording for the new CRM.');
    writeFileSync(join(v2, 'large', file), text);
  }
  return { before: join(root, 'catalogs', 'large.yaml'), after: join(v2, 'large.yaml') };
}

/** The commands measured: label, argv after the binary, and whether each is measured as a first run too. */
function commands({ diff, big }) {
  const c = (file) => join(root, 'catalogs', file);
  const rows = [
    { id: 'version', label: 'toolman --version', argv: ['--version'], first: false },
    { id: 'validate-assistant', label: 'validate catalogs/assistant.yaml', argv: ['validate', c('assistant.yaml')] },
    { id: 'validate-large', label: 'validate catalogs/large.yaml (126 tools, 14 files)', argv: ['validate', c('large.yaml')] },
    { id: 'budget-assistant', label: 'budget, assistant.yaml (OpenAI)', argv: ['-c', c('assistant.yaml'), 'budget', '--json'] },
    { id: 'budget-large', label: 'budget, large.yaml (OpenAI)', argv: ['-c', c('large.yaml'), 'budget', '--json'] },
    { id: 'chat-assistant', label: 'chat --prompt --json, assistant.yaml, one round', argv: ['-c', c('assistant.yaml'), 'chat', '--prompt', 'What is on my calendar today?', '--json', '--no-transcript'] },
    { id: 'chat-large', label: 'chat --prompt --json, large.yaml, one round', argv: ['-c', c('large.yaml'), 'chat', '--prompt', 'What is on my calendar today?', '--json', '--no-transcript'] },
    { id: 'test-replay', label: 'test suites/assistant.yaml --replay (12 runs)', argv: ['-c', c('assistant.yaml'), 'test', join(root, 'suites', 'assistant.yaml'), '--replay', join(root, 'suites', 'recordings'), '--json'] },
    { id: 'diff-large', label: 'diff of two versions of large.yaml', argv: ['diff', diff.before, diff.after, '--json'] },
  ];
  if (big) {
    rows.push(
      { id: 'format-10k', label: 'format -P openai, 10,000 tools (3 warnings, 158 infos)', argv: ['-c', big, 'format', '--provider', 'openai'], first: false },
      { id: 'budget-10k', label: 'budget -P openai, 10,000 tools', argv: ['-c', big, 'budget', '--provider', 'openai', '--json'], first: false },
    );
  }
  return rows;
}

function run(argv, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const ms = performance.now() - started;
      // Exit 1 is a verdict (findings, a budget exceeded), not a broken run.
      if (code !== 0 && code !== 1) reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

export async function oneShotBench({ runs = 11, big } = {}) {
  const { startModelServer } = await import(await bundleForScript('one-shot-bench', ["export { startModelServer } from './test/helpers/model-server.ts';"]));
  const server = await startModelServer();
  server.script(() => ({ text: 'You have two meetings today.', usage: { input: 1200, output: 9 } }));
  const scratch = mkdtempSync(join(tmpdir(), 'toolman-bench-one-shot-'));
  const rows = commands({ diff: largeCatalogVersions(scratch), big });
  const env = (cache) => ({ ...process.env, NO_COLOR: '1', OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: cache });
  const warmCache = Object.fromEntries(rows.map((r) => [r.id, join(scratch, `cache-${r.id}`)]));
  for (const r of rows) await run([bin, ...r.argv], env(warmCache[r.id]));
  const samples = { bare: [], 'bare:clean': [] };
  const extraCa = Boolean(process.env.NODE_EXTRA_CA_CERTS);
  const clean = (e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS'));
  for (let round = 0; round < runs; round++) {
    samples.bare.push(await run(['-e', '0'], process.env));
    if (extraCa) samples['bare:clean'].push(await run(['-e', '0'], clean(process.env)));
    for (const r of rows) {
      (samples[`${r.id}:warm`] ??= []).push(await run([bin, ...r.argv], env(warmCache[r.id])));
      if (extraCa) (samples[`${r.id}:clean`] ??= []).push(await run([bin, ...r.argv], clean(env(warmCache[r.id]))));
      if (r.first === false) continue;
      const fresh = mkdtempSync(join(scratch, 'first-'));
      (samples[`${r.id}:first`] ??= []).push(await run([bin, ...r.argv], env(fresh)));
      rmSync(fresh, { recursive: true, force: true });
    }
  }
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
  const bare = median(samples.bare);
  const bareClean = extraCa ? median(samples['bare:clean']) : null;
  const figure = (key, base = bare) => (samples[key] ? { median_ms: round1(median(samples[key])), ratio: round2(median(samples[key]) / base) } : null);
  return {
    runs,
    bare_node_ms: round1(bare),
    ...(extraCa ? { bare_node_without_extra_ca_ms: round1(bareClean) } : {}),
    rows: rows.map((r) => ({ id: r.id, label: r.label, warm: figure(`${r.id}:warm`), first: figure(`${r.id}:first`), ...(extraCa ? { warm_without_extra_ca: figure(`${r.id}:clean`, bareClean) } : {}) })),
  };
}

const round1 = (v) => Math.round(v * 10) / 10;
const round2 = (v) => Math.round(v * 100) / 100;

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--runs');
  console.log(JSON.stringify(await oneShotBench({ runs: at > 0 ? Number(process.argv[at + 1]) : 11 }), null, 2));
}
