import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aServer, type A2aServer } from '../helpers/a2a-server.js';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

/** `toolman call` and `toolman chat` on sub-agents, through the built binary (npm run build first). */
const TOKEN = 'tok-cli-5a4b3c2d1e';
let a2a: A2aServer;
let models: ModelServer;
let dir: string;
let remote: string;
const LOCAL = 'test/fixtures/catalogs/agents-local.yaml';

beforeAll(async () => {
  [a2a, models] = await Promise.all([startA2aServer(), startModelServer()]);
  dir = mkdtempSync(join(tmpdir(), 'toolman-cli-agents-'));
  remote = join(dir, 'remote.yaml');
  writeFileSync(
    remote,
    `toolman: 1
name: remote-agents
agents:
  researcher:
    description: Researches a question in depth and answers with sources.
    a2a: { url: "${a2a.url}", headers: { Authorization: "Bearer \${env:A2A_TOKEN}" } }
`,
  );
});
afterAll(async () => {
  await Promise.all([a2a.close(), models.close()]);
});

const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '', TOOLMAN_CACHE_DIR: 'off' };

describe('toolman call on an agent', () => {
  it('hands a task to an A2A agent, with its progress on stderr and the token never printed', async () => {
    const run = await runBin(['call', 'researcher', '--catalog', remote, '--verbose', '--args', JSON.stringify({ task: `echo the token ${TOKEN}` })], { env: { ...noKeys, A2A_TOKEN: TOKEN } });
    expect(run.stderr).toContain('researcher: progress connected to Loopback Researcher 1.0.0');
    expect(run.stdout.trim()).toBe('You said: the token [redacted]');
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    expect(a2a.headers.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('exits 1 with the agent\'s reason when its task fails', async () => {
    const run = await runBin(['call', 'researcher', '--catalog', remote, '--args', '{"task":"fail"}'], { env: { ...noKeys, A2A_TOKEN: TOKEN } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: researcher failed: the upstream index is unavailable');
  });

  it('runs a local agent\'s nested loop against an OpenAI-compatible server', async () => {
    models.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is 3 °C in Oslo.' }]);
    const run = await runBin(['call', 'helper', '--catalog', LOCAL, '--verbose', '--args', '{"task":"How cold is Oslo?"}'], { env: { ...noKeys, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${models.url}/v1` } });
    expect(run.stderr).toContain('helper: progress calling get_weather({"city":"Oslo"})');
    expect(run.stdout.trim()).toBe('It is 3 °C in Oslo.');
    expect(run.code).toBe(0);
  });

  it('names the missing key of a local agent', async () => {
    const run = await runBin(['call', 'helper', '--catalog', LOCAL, '--args', '{"task":"How cold is Oslo?"}'], { env: noKeys });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('helper is a local agent on OpenAI and needs OPENAI_API_KEY');
  });
});

describe('toolman chat with an agent that takes control', () => {
  it('answers with the agent\'s report and keeps the nested loop in the transcript', async () => {
    const transcript = join(dir, 'chat.jsonl');
    models.script([
      { toolCalls: [{ name: 'researcher', arguments: { task: 'Weather report for Oslo' } }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Report: Oslo is at 3 °C.' },
    ]);
    const run = await runBin(['chat', '--catalog', LOCAL, '--base-url', `${models.url}/v1`, '--model', 'test-model', '--prompt', 'Research the weather in Oslo', '--transcript', transcript], {
      env: { ...noKeys, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${models.url}/v1` },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Report: Oslo is at 3 °C.');
    const lines = readFileSync(transcript, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const nested = lines.filter((l) => l.type === 'agent_event');
    expect(nested.length).toBeGreaterThan(3);
    expect(nested.every((l) => l.agent === 'researcher' && l.depth === 1)).toBe(true);
    expect(nested.map((l) => l.event.type)).toEqual(expect.arrayContaining(['tool_calls', 'tool_result', 'done']));
    expect(lines.at(-1)).toMatchObject({ type: 'done', stop: 'took_control' });
  });
});
