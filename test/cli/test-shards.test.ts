import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

// `--shard I/N` and `toolman test merge` (issue 22: 6): recorded once against the scripted model
// server, then replayed whole and in shards; the merge must give what the whole run gave.
let server: ModelServer;
let dir: string;
let file: string;
let recordings: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
const userText = (r: RecordedRequest) => JSON.stringify((r.body.messages as { role: string }[]).filter((m) => m.role === 'user'));
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', TOOLMAN_CACHE_DIR: 'off' };

beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-shards-'));
  // Bergen fails every other request (so pass rates are neither 0 nor 1), Tromso always.
  let bergen = 0;
  server.script((r) => {
    if (assistantTurns(r) > 0) return { text: 'Cloudy.', usage: { input: 700, output: 8, cached: 100 } };
    const text = userText(r);
    const ok = text.includes('Oslo') || (text.includes('Bergen') && bergen++ % 2 === 0);
    return { toolCalls: [{ name: ok ? 'get_weather' : 'get_forecast', arguments: { city: 'Oslo' } }], usage: { input: 600, output: 12 } };
  });
  file = join(dir, 'sharded.yaml');
  writeFileSync(
    file,
    `name: sharded\ncatalog: ${JSON.stringify(catalog)}\nproviders: [openai:gpt-4o-mini, openai:gpt-4.1-mini]\nrepeat: 5\nmin_pass_rate: 0.4\ncases:\n  - { name: oslo, prompt: weather in Oslo, expect: { calls: [{ tool: get_weather }] } }\n  - { name: bergen, prompt: weather in Bergen, expect: { calls: [{ tool: get_weather }] } }\n  - { name: tromso, prompt: weather in Tromso, expect: { calls: [{ tool: get_weather }] } }\n`,
  );
  recordings = join(dir, 'rec');
  const recorded = await runBin(['test', '--suite-catalog', file, '--record', recordings], { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' } });
  expect(recorded.code, recorded.stderr).toBe(1);
}, 60_000);
afterAll(async () => server.close());

/** Latencies are the only figures that are not deterministic on replay. */
const steady = (text: string) => text.replace(/"latency_ms": \d+/g, '"latency_ms": 0').replace(/"(mean|p50|p95)": \d+/g, '"$1": 0');
// A latency's digits also change the width of its table column.
const steadyText = (text: string) => text.replace(/\d+\/\d+ ms/g, 'N/N ms').replace(/ +│/g, ' │').replace(/─+/g, '─');
const steadyXml = (text: string) => text.replace(/ time="[\d.]+"/g, '').replace(/ timestamp="[^"]+"/g, '').replace(/, [\d.]+ s -->/, ' -->');

async function shards(count: number, extra: string[] = []): Promise<string[]> {
  const files: string[] = [];
  for (let i = 1; i <= count; i++) {
    const run = await runBin(['test', '--suite-catalog', file, '--replay', recordings, '--shard', `${i}/${count}`, '--json', ...extra], { env: offline });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.ok).toBeNull();
    expect(doc.plan.shard).toEqual({ index: i, count });
    const out = join(dir, `shard-${count}-${i}${extra.length ? '-seq' : ''}.json`);
    writeFileSync(out, run.stdout);
    files.push(out);
  }
  return files;
}

describe('toolman test --shard I/N and toolman test merge', () => {
  it('3 shards hold every run once, and their merge is the unsharded run byte for byte (latencies aside): --json, text, JUnit, HTML', async () => {
    const whole = await runBin(['test', '--suite-catalog', file, '--replay', recordings, '--json', '--junit', join(dir, 'whole.xml'), '--html', join(dir, 'whole.html')], { env: offline });
    expect(whole.code, whole.stderr).toBe(1);
    const parts = await shards(3);
    const counts = parts.map((p) => JSON.parse(readFileSync(p, 'utf8')).suites[0].runs.length);
    expect(counts).toEqual([10, 10, 10]);
    const merged = await runBin(['test', 'merge', ...parts.reverse(), '--json', '--junit', join(dir, 'merged.xml'), '--html', join(dir, 'merged.html')], { env: offline });
    expect(merged.code).toBe(whole.code);
    expect(steady(merged.stdout)).toBe(steady(whole.stdout));
    expect(steadyXml(readFileSync(join(dir, 'merged.xml'), 'utf8'))).toBe(steadyXml(readFileSync(join(dir, 'whole.xml'), 'utf8')));
    expect(steadyText(readFileSync(join(dir, 'merged.html'), 'utf8'))).toBe(steadyText(readFileSync(join(dir, 'whole.html'), 'utf8')));
    const wholeText = await runBin(['test', '--suite-catalog', file, '--replay', recordings], { env: offline });
    const mergedText = await runBin(['test', 'merge', ...parts], { env: offline });
    expect(steadyText(mergedText.stdout)).toBe(steadyText(wholeText.stdout));
    expect(mergedText.stdout).toContain('bergen');
  });

  it('with --sequential the shards keep each case\'s repeats together, and the merge is the sequential run', async () => {
    const whole = await runBin(['test', '--suite-catalog', file, '--replay', recordings, '--json', '--sequential'], { env: offline });
    const merged = await runBin(['test', 'merge', ...(await shards(4, ['--sequential'])), '--json'], { env: offline });
    expect(merged.code).toBe(whole.code);
    expect(steady(merged.stdout)).toBe(steady(whole.stdout));
    expect(JSON.parse(whole.stdout).suites[0].sequential.runs_saved).toBeGreaterThan(0);
  });

  it('a baseline from the merge gates the next merge like a whole run', async () => {
    const parts = await shards(2);
    const baseline = join(dir, 'merged-baseline.json');
    const update = await runBin(['test', 'merge', ...parts, '--baseline', baseline, '--update-baseline'], { env: offline });
    expect(update.code).toBe(1); // the run's own verdict: tromso is under its bar
    expect(update.stderr).toContain('baseline ');
    const again = await runBin(['test', 'merge', ...parts, '--baseline', baseline], { env: offline });
    expect(again.stdout).toContain('within noise');
  });

  it('usage errors: --shard without --json, with a whole-run flag, a bad I/N; merge of a missing or repeated shard', async () => {
    const bad = async (args: string[]) => {
      const run = await runBin(args, { env: offline });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      return run.stderr;
    };
    expect(await bad(['test', '--suite-catalog', file, '--replay', recordings, '--shard', '1/2'])).toContain('--shard needs --json');
    expect(await bad(['test', '--suite-catalog', file, '--replay', recordings, '--shard', '1/2', '--json', '--html', join(dir, 'x.html')])).toContain('--html does not go with --shard');
    for (const spec of ['0/2', '3/2', '1/0', 'a/b', '1/2000']) expect(await bad(['test', '--suite-catalog', file, '--replay', recordings, '--shard', spec, '--json'])).toContain('--shard takes I/N');
    const parts = await shards(3);
    expect(await bad(['test', 'merge', parts[0]!, parts[1]!])).toContain('shard 3 of 3 missing');
    expect(await bad(['test', 'merge', parts[0]!, parts[0]!, parts[2]!])).toContain('given twice');
    const edited = join(dir, 'edited.json');
    writeFileSync(edited, readFileSync(parts[2]!, 'utf8').replace('"passed": true', '"passed": "yes"'));
    expect(await bad(['test', 'merge', parts[0]!, parts[1]!, edited])).toMatch(/edited\.json:\d+:\d+ \/suites\/0\/runs\/\d+\/passed: must be boolean/);
  });
});
