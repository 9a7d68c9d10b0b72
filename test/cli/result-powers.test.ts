import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { BIN, ROOT } from '../helpers/paths.js';

/**
 * Summaries, sources and evaluation checks from the command line, offline: the shipped
 * enterprise catalog with its recordings (chat and suite), the local model server, and `serve`.
 */
const ENTERPRISE = ['-c', 'catalogs/enterprise.yaml'];
const REPLAY = [...ENTERPRISE, 'chat', '--replay', 'catalogs/recordings/enterprise.jsonl', '--no-transcript'];
const POWERS = 'test/fixtures/catalogs/result-powers.yaml';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

describe('chat: the shipped enterprise recording shows all three, with no key and no network', () => {
  it('--json: the summarised page, the numbered sources and the verdicts', async () => {
    const run = await runBin([...REPLAY, '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.answer).toMatch(/\[1\]\.$/);
    expect(doc.references).toEqual([{ n: 1, url: 'https://intranet.example.com/hr/parental-leave', title: 'Parental leave', snippet: '20 weeks fully paid…', tool: 'search_intranet', call_id: expect.any(String) }]);
    const page = doc.calls.find((c: { tool: string }) => c.tool === 'read_intranet_page');
    expect(JSON.parse(page.content)).toMatchObject({ _summarized: true, _original_tokens: expect.any(Number), summary: expect.stringContaining('20 weeks') });
    expect(doc.evaluations.map((v: { name: string; verdict: string; on: string }) => `${v.name} ${v.on} ${v.verdict}`)).toEqual(['page_shape result pass', 'grounded answer pass', 'no_pii answer pass']);
  });

  it('text: the answer on standard output, the sources and the verdicts beside it on standard error', async () => {
    const run = await runBin(REPLAY, { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^Parental leave is 20 weeks.*\[1\]\.$/);
    expect(run.stderr).toContain('✓ read_intranet_page');
    expect(run.stderr).toMatch(/✓ read_intranet_page [\d.]+ ms \(summarized\)/);
    expect(run.stderr).toMatch(/✓ search_intranet [\d.]+ ms \(1 source\)/);
    expect(run.stderr).toContain('sources:\n  [1] Parental leave — https://intranet.example.com/hr/parental-leave');
    expect(run.stderr).toContain('✓ evaluation grounded passed');
    expect(run.stderr).toContain("✓ evaluation page_shape on search_intranet's result passed");
  });

  it('--events and the transcript carry the verdicts as a loop event, and done carries the sources', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolman-powers-'));
    const transcript = join(folder, 't.jsonl');
    const run = await runBin([...ENTERPRISE, 'chat', '--replay', 'catalogs/recordings/enterprise.jsonl', '--events', '--transcript', transcript], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(events.find((e) => e.type === 'evaluations').verdicts).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'done', references: [{ n: 1, tool: 'search_intranet' }] });
    const written = readFileSync(transcript, 'utf8');
    expect(written).toContain('"type":"evaluations"');
    expect(written).toContain('"_summarized\\":true');
  });
});

describe('test: cites and evaluations expectations from recordings', () => {
  it('the shipped suite passes; the same runs judged by other expectations fail, saying why', async () => {
    const passing = await runBin([...ENTERPRISE, 'test', 'suites/enterprise.yaml', '--replay', 'suites/recordings', '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(passing.code, passing.stderr).toBe(0);
    // The same suite name and case, so the same recordings answer: only the expectations differ.
    const folder = mkdtempSync(join(tmpdir(), 'toolman-powers-suite-'));
    cpSync(join(ROOT, 'suites', 'recordings', 'enterprise'), join(folder, 'recordings', 'enterprise'), { recursive: true });
    writeFileSync(
      join(folder, 'suite.yaml'),
      `name: enterprise
profile: full
providers: [openai:gpt-4o]
cases:
  - name: policy questions go to the intranet
    prompt: What is our parental leave policy?
    expect:
      answer: { cites: [web_search] }
      evaluations: { grounded: fail, no_pii: pass }
`,
    );
    const failing = await runBin(['-c', join(ROOT, 'catalogs', 'enterprise.yaml'), 'test', join(folder, 'suite.yaml'), '--replay', join(folder, 'recordings'), '--json'], { env: { OPENAI_API_KEY: '' } });
    expect(failing.code, failing.stderr).toBe(1);
    const run = JSON.parse(failing.stdout).suites[0].runs[0];
    expect(run.failures).toEqual([
      { expectation: 'answer.cites web_search', message: expect.stringContaining('web_search gave no sources in the turn') },
      { expectation: 'evaluations grounded', message: 'expected grounded to fail; it passed' },
    ]);
  });
});

describe('call and serve: sessions no conversation owns', () => {
  it('call: the manager summarises with the catalog\'s model (the local model server); without a key it says why it cut instead', async () => {
    server.script([{ text: 'Leave: 20 weeks, fully paid.' }]);
    server.requests.length = 0;
    const live = await runBin(['-c', POWERS, 'call', 'read_page', '--args', '{"url": "https://example.org/a"}', '--json'], { env: { OPENAI_API_KEY: 'sk-call-summary-key-123', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' } });
    expect(live.code, live.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.model)).toEqual(['small-model']);
    const response = JSON.parse(live.stdout).responses[0];
    expect(response).toMatchObject({ summarized: true, truncated: true });
    expect(JSON.parse(response.content).summary).toBe('Leave: 20 weeks, fully paid.');
    const offline = await runBin(['-c', POWERS, 'call', 'read_page', '--args', '{"url": "https://example.org/a"}'], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', TOOLMAN_CACHE_DIR: 'off' } });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toContain('not summarised: openai small-model could not summarise it: a summary or a grade from OpenAI and needs OPENAI_API_KEY');
  });

  it('call: sources and result verdicts beside the result', async () => {
    const run = await runBin(['-c', POWERS, 'call', 'web_search', '--args', '{"query": "broken"}'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('✗ evaluation result_shape failed: result.results must be array');
    const found = await runBin(['-c', POWERS, 'call', 'web_search', '--args', '{"query": "x"}'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(found.stderr).toContain('source: Example — https://example.org/a');
    expect(found.stderr).toContain('✓ evaluation result_shape passed');
  });

  it('serve: a result\'s sources are MCP resource links; result verdicts and summaries are in _meta', async () => {
    const client = new Client({ name: 'toolman-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--catalog', POWERS, 'serve'], cwd: ROOT, env: { ...(process.env as Record<string, string>), NO_COLOR: '1', TOOLMAN_CACHE_DIR: 'off', OPENAI_API_KEY: '' }, stderr: 'pipe' });
    await client.connect(transport);
    try {
      // Nothing numbers sources in serve: the citation line of the system prompt is not in its instructions.
      expect(client.getInstructions() ?? '').not.toContain('cite it as [n]');
      const result = await client.callTool({ name: 'web_search', arguments: { query: 'second' } });
      expect(result.content).toEqual([
        { type: 'text', text: '{"results":[{"title":"Other","url":"https://example.org/b"},{"title":"Example","url":"https://example.org/a"}]}' },
        { type: 'resource_link', uri: 'https://example.org/b', name: 'Other' },
        { type: 'resource_link', uri: 'https://example.org/a', name: 'Example' },
      ]);
      expect(result._meta?.['toolman/evaluations']).toEqual([{ name: 'result_shape', verdict: 'pass', on: 'result', tools: ['web_search'], call_id: expect.any(String) }]);
      const page = await client.callTool({ name: 'read_page', arguments: { url: 'https://example.org/a' } });
      // No key here: the page is cut, not summarised, and says so.
      expect(page._meta).toMatchObject({ 'toolman/truncated': true });
      expect(page._meta?.['toolman/summarized']).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('references: resource_links on a real MCP server\'s tool', () => {
  it('the reference server\'s get-resource-links: its resource_link blocks become sources, through an override', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolman-powers-mcp-'));
    writeFileSync(
      join(folder, 'toolman.yaml'),
      `toolman: 1
name: t
overrides:
  - tools: [ev_get-resource-links]
    set: { references: resource_links }
mcp_servers:
  everything:
    command: ${JSON.stringify(join(ROOT, 'node_modules', '.bin', 'mcp-server-everything'))}
    prefix: ev_
    include: [get-resource-links]
`,
    );
    const run = await runBin(['call', 'ev_get-resource-links', '--args', '{"count": 3}', '--json'], { cwd: folder, env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    const refs = JSON.parse(run.stdout).responses[0].references;
    expect(refs).toHaveLength(3);
    expect(refs[0]).toMatchObject({ url: expect.stringMatching(/^demo:\/\/resource\//), title: 'Blob Resource 1', snippet: expect.stringContaining('Resource 1') });
  });
});
