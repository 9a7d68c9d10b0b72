import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallEvent } from '../../src/execute/types.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { startA2aServer, type A2aServer } from '../helpers/a2a-server.js';

const TOKEN = 'tok-9f8e7d6c5b4a';
let streaming: A2aServer;
let blocking: A2aServer;
let dir: string;
let closedPort: number;

/** A catalog with the loopback agents at their ports (URLs written out: `${env:}` values are secrets and would be redacted). */
function catalogFile(extra = ''): string {
  const file = join(dir, `agents-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `toolman: 1
name: a2a-agents
agents:
  researcher:
    description: Researches a question in depth and answers with sources.
    a2a: { url: "${streaming.url}", headers: { Authorization: "Bearer \${env:A2A_TOKEN}" } }
  plain:
    description: The same kind of agent, on a server that does not stream.
    a2a: { url: "${blocking.url}/.well-known/agent-card.json" }
  quick:
    description: An agent with a short timeout, for the hanging case.
    timeout_ms: 400
    a2a: { url: "${streaming.url}" }
  quickplain:
    description: The same, on the server that does not stream.
    timeout_ms: 400
    a2a: { url: "${blocking.url}" }
  capped:
    description: An agent whose answers may not be bigger than a megabyte.
    a2a: { url: "${streaming.url}", max_response_bytes: 1000000 }
  nowhere:
    description: An agent nobody listens for, to see the error.
    a2a: { url: "http://127.0.0.1:${closedPort}" }
${extra}`,
  );
  return file;
}

let manager: ToolManager;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-a2a-'));
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  [streaming, blocking] = await Promise.all([startA2aServer(), startA2aServer({ streaming: false, name: 'Blocking Agent' })]);
  manager = await ToolManager.open({ catalogs: [catalogFile()], cwd: dir, env: { A2A_TOKEN: TOKEN }, requireValid: 'all' });
});
afterAll(async () => {
  await manager.close();
  await Promise.all([streaming.close(), blocking.close()]);
});

async function call(name: string, task: string, options: { signal?: AbortSignal } = {}) {
  const events: CallEvent[] = [];
  const session = await manager.session({ onEvent: (e) => events.push(e) });
  const turn = await session.runTurn([{ id: 'c1', name, arguments: { task } }], options);
  return { response: turn.responses[0]!, events, progress: events.filter((e) => e.type === 'tool_progress').map((e) => (e as { message: string }).message) };
}

describe('a2a agents', () => {
  it('hands a task over and answers with the artifact', async () => {
    const { response } = await call('researcher', 'echo tides in Oslo');
    expect(response).toMatchObject({ ok: true, content: 'You said: tides in Oslo' });
  });

  it('turns streamed status updates and artifacts into progress, in order', async () => {
    const { response, progress } = await call('researcher', 'steps');
    expect(response).toMatchObject({ ok: true, content: 'Report: three steps done.' });
    expect(progress[0]).toBe('connected to Loopback Researcher 1.0.0 (skills: Research)');
    expect(progress).toEqual(expect.arrayContaining(['working: step 1/3', 'working: step 2/3', 'working: step 3/3', 'artifact "report"', 'completed']));
    expect(progress.indexOf('working: step 3/3')).toBeLessThan(progress.indexOf('artifact "report"'));
  });

  it('blocks on an agent that does not stream, its card given by URL', async () => {
    const { response, progress } = await call('plain', 'steps');
    expect(response).toMatchObject({ ok: true, content: 'Report: three steps done.' });
    expect(progress).toEqual(['connected to Blocking Agent 1.0.0 (skills: Research)']);
  });

  it('keeps a lone data part as JSON, and takes a bare message as the answer', async () => {
    expect((await call('researcher', 'data')).response).toMatchObject({ ok: true, content: '{"answer":42}' });
    expect((await call('researcher', 'message')).response).toMatchObject({ ok: true, content: 'A plain message answer.' });
    expect((await call('plain', 'data')).response).toMatchObject({ ok: true, content: '{"answer":42}' });
  });

  it.each([
    ['fail', 'researcher failed: the upstream index is unavailable'],
    ['reject', 'researcher declined the task: I only do research tasks'],
    ['input', 'researcher needs more input: which year do you mean?. Call it again with a task that includes what it asks for.'],
  ])('makes a %s task a tool error in the agent\'s words', async (task, message) => {
    const streamed = await call('researcher', task);
    expect(streamed.response).toMatchObject({ ok: false, error_kind: 'tool_error', error: message });
    const blocked = await call('plain', task);
    expect(blocked.response).toMatchObject({ ok: false, error_kind: 'tool_error', error: message.replace(/^researcher/, 'plain') });
  });

  it('times out an agent that hangs, and cancels its remote task', async () => {
    const before = streaming.cancelled.length;
    const { response } = await call('quick', 'hang');
    expect(response).toMatchObject({ ok: false, error_kind: 'timeout', error: 'quick did not finish within 400 ms and was stopped' });
    await expect.poll(() => streaming.cancelled.length, { timeout: 3000 }).toBe(before + 1);
  });

  it('times out an agent that does not stream and hangs, and cancels its remote task', async () => {
    const before = blocking.cancelled.length;
    const { response } = await call('quickplain', 'hang');
    expect(response).toMatchObject({ ok: false, error_kind: 'timeout', error: 'quickplain did not finish within 400 ms and was stopped' });
    await expect.poll(() => blocking.cancelled.length, { timeout: 3000 }).toBe(before + 1);
  });

  it('cancels the remote task of an agent that does not stream when the turn is cancelled', async () => {
    const before = blocking.cancelled.length;
    const controller = new AbortController();
    const pending = call('plain', 'hang', { signal: controller.signal });
    await expect.poll(() => blocking.tasks.filter((t) => t === 'hang').length, { timeout: 3000 }).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    const { response } = await pending;
    expect(response).toMatchObject({ ok: false, error_kind: 'cancelled' });
    await expect.poll(() => blocking.cancelled.length, { timeout: 3000 }).toBe(before + 1);
  });

  it('cancels the remote task when the turn is cancelled', async () => {
    const before = streaming.cancelled.length;
    const controller = new AbortController();
    const pending = call('researcher', 'hang', { signal: controller.signal });
    await expect.poll(() => streaming.tasks.filter((t) => t === 'hang').length, { timeout: 3000 }).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    const { response } = await pending;
    expect(response).toMatchObject({ ok: false, error_kind: 'cancelled' });
    await expect.poll(() => streaming.cancelled.length, { timeout: 3000 }).toBe(before + 1);
  });

  it('cleans escapes and control characters from answers and progress', async () => {
    const { response, progress } = await call('researcher', 'escapes');
    expect(response).toMatchObject({ ok: true, content: 'red ok evil\nline two\tend' });
    expect(progress).toContain('working: working hard next line');
  });

  it('stops reading a huge answer', async () => {
    const { response } = await call('researcher', 'hostile');
    // Read in full (6 MB, over the 4 MiB default): refused, not buffered without end.
    expect(response).toMatchObject({ ok: false, error_kind: 'tool_error' });
    expect(response.error).toMatch(/over max_response_bytes \(4194304\)/);
    const capped = await call('capped', 'hostile');
    expect(capped.response.error).toMatch(/over max_response_bytes \(1000000\)/);
  });

  it('sends the auth header to the agent and redacts its value everywhere', async () => {
    streaming.headers.length = 0;
    const { response, events } = await call('researcher', `echo my token is ${TOKEN}`);
    expect(streaming.headers.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(response.content).toBe('You said: my token is [redacted]');
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    // The agent without headers sends none.
    blocking.headers.length = 0;
    await call('plain', 'echo hi');
    expect(blocking.headers.every((h) => h.authorization === undefined)).toBe(true);
  });

  it('a card reached through a redirect to another origin does not decide where the headers go', async () => {
    // The catalog names an origin that answers the card request with a redirect to another one,
    // whose card names itself as the interface: the task goes there, the token does not.
    const { createServer: createHttpServer } = await import('node:http');
    const redirector = createHttpServer((req, res) => void res.writeHead(302, { location: `${streaming.url}${req.url}` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const hop = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    const file = catalogFile(`  hopped:
    description: An agent whose card is served, through a redirect, by another origin.
    a2a: { url: "${hop}", headers: { Authorization: "Bearer \${env:A2A_TOKEN}" } }
  listed:
    description: The same, with that other origin listed by the catalog.
    a2a: { url: "${hop}", headers: { Authorization: "Bearer \${env:A2A_TOKEN}" }, origins: ["${streaming.url}"] }
`);
    const hopping = await ToolManager.open({ catalogs: [file], cwd: dir, env: { A2A_TOKEN: TOKEN }, requireValid: 'all' });
    try {
      const session = await hopping.session();
      streaming.headers.length = 0;
      const hopped = await session.runTurn([{ id: 'c1', name: 'hopped', arguments: { task: 'echo hi' } }]);
      expect(hopped.responses[0]).toMatchObject({ ok: true, content: 'You said: hi' });
      expect(streaming.headers.length).toBeGreaterThan(1);
      expect(streaming.headers.every((h) => h.authorization === undefined)).toBe(true);
      streaming.headers.length = 0;
      const listed = await session.runTurn([{ id: 'c2', name: 'listed', arguments: { task: 'echo hi' } }]);
      expect(listed.responses[0]).toMatchObject({ ok: true });
      expect(streaming.headers.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
    } finally {
      await hopping.close();
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('says which variable is missing when a header needs one', async () => {
    const bare = await ToolManager.open({ catalogs: [catalogFile()], cwd: dir, env: {} });
    try {
      const session = await bare.session();
      const turn = await session.runTurn([{ id: 'c1', name: 'researcher', arguments: { task: 'echo hi' } }]);
      expect(turn.responses[0]).toMatchObject({ ok: false, error: "researcher's a2a.headers.Authorization needs the environment variable A2A_TOKEN, which is not set" });
    } finally {
      await bare.close();
    }
  });

  it('says where it could not reach', async () => {
    const { response } = await call('nowhere', 'echo hi');
    expect(response).toMatchObject({ ok: false, error_kind: 'tool_error' });
    expect(response.error).toMatch(new RegExp(`^nowhere failed: cannot reach http://127\\.0\\.0\\.1:${closedPort}: ECONNREFUSED`));
  });
});
