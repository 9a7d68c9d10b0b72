import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

// `toolman test init` and `--coverage` (issue 22: 7), through the built binary.
let server: ModelServer;
let dir: string;
const confusable = join(FIXTURES, 'diagnostics', 'TM1001-confusable-tools.yaml');
const travel = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-init-'));
});
afterAll(async () => server.close());
// A key that is no ordinary word: recordings are redacted of it.
const env = () => ({ OPENAI_API_KEY: 'sk-init-placeholder-0001', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
const userText = (r: RecordedRequest) => JSON.stringify((r.body.messages as { role: string }[]).filter((m) => m.role === 'user'));

describe('toolman test init', () => {
  it('writes an editable suite (0600): a case per tool, the confusable pair validate flags, no_tool cases; it runs', async () => {
    const out = join(dir, 'drafted', 'suite.yaml');
    const run = await runBin(['-c', confusable, 'test', 'init', '-o', out], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('6 cases (3 tools, 0 destructive-tool negatives, 1 confusable pairs, 2 no-tool)');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('- name: get_weather rather than get_current_weather');
    expect(text).toContain('expect: {calls: [{tool: get_weather}], not_called: [get_current_weather]}');
    expect(text).toContain('# validate flags get_weather and get_current_weather as confusable (TM1001)');
    // Never overwritten unasked.
    const again = await runBin(['-c', confusable, 'test', 'init', '-o', out], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('the file exists');
    expect((await runBin(['-c', confusable, 'test', 'init', '-o', out, '--force'], { env: { TOOLMAN_CACHE_DIR: 'off' } })).code).toBe(0);
    // The drafted suite runs as it is, against a model that does what each prompt says.
    server.script((r) => {
      if (assistantTurns(r) > 0) return { text: 'Done.' };
      const prompt = userText(r);
      if (/Hi!|Thanks/.test(prompt)) return { text: 'Hello!' };
      const tool = prompt.includes('email') ? 'send_email' : prompt.includes('conditions and temperature') ? 'get_current_weather' : 'get_weather';
      return { toolCalls: [{ name: tool, arguments: tool === 'send_email' ? { to: ['a@b.c'], subject: 's', body: 'b' } : { city: 'Oslo' } }] };
    });
    const tested = await runBin(['-c', confusable, 'test', out, '-P', 'openai:gpt-4o-mini'], { env: env() });
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('passed: 6/6 runs passed');
  });

  it('--model writes the prompts through the conversation facade, recorded; the replay writes the same suite with no key', async () => {
    server.requests.length = 0;
    server.script((r) => {
      const asked = userText(r);
      const ids = [...asked.matchAll(/- ([tndz]\d+):/g)].map((m) => m[1]!);
      const prompts = Object.fromEntries(ids.map((id) => [id, id.startsWith('z') ? `Good morning (${id})` : `Could you check the weather in Oslo for me? (${id})`]));
      return { text: `Here you are:\n${JSON.stringify(prompts)}` };
    });
    const rec = join(dir, 'init.jsonl');
    const live = join(dir, 'model-suite.yaml');
    const run = await runBin(['-c', travel, 'test', 'init', '-o', live, '--model', 'openai:gpt-4o-mini', '--record', rec], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('prompts written by openai:gpt-4o-mini (8 of 8');
    const text = readFileSync(live, 'utf8');
    expect(text).toContain('prompt: Could you check the weather in Oslo for me? (t1)');
    expect(text).toContain('prompt: Good morning (z2)');
    // The model saw the catalog's tools and was told not to call them.
    expect(server.requests[0]!.body.tools.length).toBeGreaterThan(0);
    const replayed = join(dir, 'replayed-suite.yaml');
    const replay = await runBin(['-c', travel, 'test', 'init', '-o', replayed, '--model', 'openai:gpt-4o-mini', '--replay', rec], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', TOOLMAN_CACHE_DIR: 'off' } });
    expect(replay.code, replay.stderr).toBe(0);
    expect(readFileSync(replayed, 'utf8').replace(/name: replayed-suite/, 'name: model-suite')).toBe(text);
  });

  it("a model's hostile answer stays data: prompts it did not give are drafted, control characters dropped", async () => {
    server.script(() => ({ text: '{"t1": "weather\\u001b]0;pwned\\u0007 in Oslo", "t2": {"a": 1}, "evil": "x"}' }));
    const run = await runBin(['-c', travel, 'test', 'init', '--model', 'openai:gpt-4o-mini'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('prompt: weather in Oslo');
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stderr).toContain('no usable prompt for 7 cases');
  });

  it('usage errors: --record without --model, both --record and --replay', async () => {
    expect((await runBin(['-c', travel, 'test', 'init', '--record', join(dir, 'x.jsonl')], { env: {} })).code).toBe(2);
    expect((await runBin(['-c', travel, 'test', 'init', '--model', 'openai', '--record', 'a', '--replay', 'b'], { env: {} })).code).toBe(2);
  });
});

describe('toolman test --coverage', () => {
  const suite = () => {
    const file = join(dir, 'coverage.yaml');
    writeFileSync(file, `cases:\n  - { name: a, prompt: weather, expect: { calls: [{ tool: get_weather, args: { city: Oslo, units: metric } }] } }\n`);
    return file;
  };

  it('text: the tools, parameters and enum values no case exercises; nothing runs', async () => {
    const before = server.requests.length;
    const run = await runBin(['-c', travel, 'test', suite(), '--coverage'], { env: {} });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/tools\s+1\/5 \(20%\)/);
    expect(run.stdout).toContain('  cancel_booking\n');
    expect(run.stdout).toContain('get_weather.units = "imperial"');
    expect(server.requests.length).toBe(before);
  });

  it('flags about runs are refused with --coverage (exit 2)', async () => {
    for (const flag of [['--html', join(dir, 'c.html')], ['--sequential'], ['--shard', '1/2']]) expect((await runBin(['-c', travel, 'test', suite(), '--coverage', ...flag], { env: {} })).code, flag[0]).toBe(2);
  });

  it('--json and JUnit properties', async () => {
    const junit = join(dir, 'coverage.xml');
    const run = await runBin(['-c', travel, 'test', suite(), '--coverage', '--json', '--junit', junit], { env: {} });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.coverage.tools).toMatchObject({ total: 5, covered: 1 });
    expect(doc.coverage.enum_values.uncovered).toEqual([{ tool: 'get_weather', parameter: 'units', value: 'imperial' }]);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<property name="coverage.tools" value="1/5"/>');
    expect(xml).toContain('<property name="uncovered.enum_value" value="get_weather.units=imperial"/>');
    expect(xml).toContain('<property name="uncovered.tool" value="book_flight"/>');
    expect(statSync(junit).mode & 0o777).toBe(0o600);
  });
});
