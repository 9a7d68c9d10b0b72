import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/paths.js';

// `toolman serve` over the shipped coding catalog: its stateful run_tests answers with its first
// yield and a job id, and the job meta-tools (offered through the session like the others) read
// and stop it; its notes tools run through the shipped handler plugin.

let open: { client: Client; transport: StdioClientTransport }[] = [];
afterEach(async () => {
  for (const { client } of open) await client.close();
  open = [];
});

async function serve() {
  const client = new Client({ name: 'toolman-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--catalog', 'catalogs/coding.yaml', 'serve', '--profile', 'coding'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off' },
    stderr: 'pipe',
  });
  await client.connect(transport);
  open.push({ client, transport });
  return client;
}

const json = (result: unknown) => JSON.parse(((result as { content: { text: string }[] }).content[0]!).text) as Record<string, unknown>;

describe('serve: stateful tools and plugin tools', () => {
  it('offers job_next and job_stop, and a client reads a test run to its end through them', async () => {
    const client = await serve();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['run_tests', 'job_next', 'job_stop', 'save_note', 'read_notes']));
    const first = json(await client.callTool({ name: 'run_tests', arguments: {} }));
    // A job id reaches a client here: 128 random bits, not a count another client could guess.
    expect(first).toMatchObject({ job_id: expect.stringMatching(/^job_[A-Za-z0-9_-]{22}$/), tool: 'run_tests', yields: [{ n: 1, value: { file: 'test/catalog.test.mjs', passed: 1, failed: 1 } }] });
    const rest = json(await client.callTool({ name: 'job_next', arguments: { job_id: first.job_id, until: 'end', wait_ms: 30000 } }));
    expect(rest).toMatchObject({ status: 'done', result: { files: 3, passed: 5, failed: 1 } });
    expect((rest.yields as { n: number }[]).map((y) => y.n)).toEqual([2, 3]);
  });

  it('job_stop stops a run a client no longer needs', async () => {
    const client = await serve();
    const first = json(await client.callTool({ name: 'run_tests', arguments: {} }));
    const stopped = json(await client.callTool({ name: 'job_stop', arguments: { job_id: first.job_id } }));
    expect(stopped.status).toBe('stopped');
    expect(json(await client.callTool({ name: 'job_next', arguments: { job_id: first.job_id, wait_ms: 0 } }))).toMatchObject({ status: 'stopped', yields: [] });
  });

  it('runs the plugin\'s tools, with their state kept between calls', async () => {
    const client = await serve();
    expect(json(await client.callTool({ name: 'save_note', arguments: { key: 'plan', value: 'fix includes' } }))).toEqual({ saved: 'plan', keys: 1 });
    expect(json(await client.callTool({ name: 'read_notes', arguments: {} }))).toEqual({ namespace: 'coding-notes', entries: [{ key: 'plan', value: 'fix includes' }] });
    const refused = await client.callTool({ name: 'save_note', arguments: { key: 'plan' } });
    expect(refused.isError).toBe(true);
  });
});
