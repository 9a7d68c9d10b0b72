import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { formDefaults, yesInteraction, type ElicitRequest, type McpInteraction, type SampleRequest } from '../../src/manager/mcp-client.js';
import { catalogDir, MODERN, NODE, startModernHttp } from './helpers.js';

// What a server asks during a call: MCP 2026-07-28's multi round-trip requests
// (basic/patterns/mrtr.mdx: an input_required result, answered and retried), and the same
// questions pushed by a 2025 server (client/elicitation.mdx, sampling.mdx, roots.mdx), answered
// through the driver's McpInteraction. Read 2026-11-24.

const managers: ToolManager[] = [];
const stops: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
afterAll(() => stops.forEach((stop) => stop()));

type Transport = 'stdio 2026-07-28' | 'stdio 2025-11-25' | 'http 2026-07-28';
const TRANSPORTS: Transport[] = ['stdio 2026-07-28', 'stdio 2025-11-25', 'http 2026-07-28'];

async function open(transport: Transport, interaction: McpInteraction | undefined, extra = '') {
  let entry: string;
  if (transport === 'http 2026-07-28') {
    const server = await startModernHttp(['--modern-only']);
    stops.push(server.stop);
    entry = `    url: ${JSON.stringify(server.url)}\n`;
  } else {
    entry = `    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(MODERN)}, stdio]\n    protocol: ${transport === 'stdio 2025-11-25' ? 'legacy' : '"2026-07-28"'}\n`;
  }
  const { dir, file } = catalogDir(`toolman: 1\nmcp_servers:\n  m:\n${entry}${extra}`);
  const manager = await ToolManager.open({ catalogs: [file], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' }, ...(interaction ? { mcpInteraction: interaction } : {}) });
  managers.push(manager);
  return { manager, dir };
}

async function call(manager: ToolManager, name: string, args: Record<string, unknown> = {}) {
  const session = await manager.session({ approve: async () => 'approve' });
  return (await session.runTurn([{ id: '1', name, arguments: args }])).responses[0]!;
}

describe.each(TRANSPORTS)('a server that asks during a call (%s)', (transport) => {
  it('gets a yes to a one-question yes/no form from --yes, and a no to any other form (said)', async () => {
    const notes: string[] = [];
    const { manager } = await open(transport, yesInteraction((text) => notes.push(text)));
    const deleted = await call(manager, 'delete_note', { id: 'n1' });
    expect(deleted.ok, deleted.error ?? '').toBe(true);
    expect(deleted.content).toBe('deleted n1');
    const account = await call(manager, 'make_account');
    expect(account.ok).toBe(false);
    expect(account.error).toContain('no account (decline)');
    expect(notes).toEqual(['MCP server "m" asked "Account details": declined (--yes answers a yes/no question, or a form whose every field has a default; ask in `toolman chat`)']);
    // A form whose every field has a default: --yes sends the server's own defaults, and says which.
    const prefs = await call(manager, 'set_prefs');
    expect(prefs.content).toBe('prefs: {"theme":"dark","size":12,"sounds":false}');
    expect(notes[1]).toBe('MCP server "m" asked "Your preferences": accepted its defaults (--yes): theme="dark", size=12, sounds=false');
  });


  it('passes the form to the driver, cleaned, and sends its answer', async () => {
    const asked: ElicitRequest[] = [];
    const interaction: McpInteraction = {
      supports: { form: true },
      elicit: async (request) => (asked.push(request), { action: 'accept', content: { name: 'alice', plan: 'pro' } }),
    };
    const { manager } = await open(transport, interaction);
    const account = await call(manager, 'make_account');
    expect(account.content).toBe('account alice on pro');
    expect(asked).toEqual([{ mode: 'form', server: 'm', message: 'Account details', schema: { properties: { name: { type: 'string', title: 'Name' }, plan: { type: 'string', enum: ['free', 'pro'], default: 'free' } }, required: ['name'] } }]);
  });

  it('runs a sampling request through the driver with maxTokens capped, and refuses it when the driver declines', async () => {
    const asked: SampleRequest[] = [];
    let allow = true;
    const interaction: McpInteraction = {
      supports: { sampling: true },
      sample: async (request) => (asked.push(request), allow ? { model: 'test-model', text: 'short' } : { declined: 'the user said no' }),
    };
    const { manager } = await open(transport, interaction);
    const summary = await call(manager, 'summarize', { text: 'a long text' });
    expect(summary.content).toBe('summary by test-model: short');
    expect(asked[0]).toEqual({ server: 'm', messages: [{ role: 'user', text: 'Summarize: a long text' }], systemPrompt: 'Be brief.', maxTokens: 4096 });
    allow = false;
    const refused = await call(manager, 'summarize', { text: 'again' });
    expect(refused.ok).toBe(false);
    expect(refused.error).toContain('the user said no');
  });

  it('offers the entry\'s roots, resolved from the catalog\'s folder', async () => {
    const { manager, dir } = await open(transport, undefined, '    roots: [.]\n');
    const roots = await call(manager, 'list_roots');
    expect(roots.content).toBe(`roots: ${pathToFileURL(dir).href}`);
  });

  it('declares nothing without a driver: the server cannot ask, and the call fails saying why', async () => {
    const { manager } = await open(transport, undefined);
    const deleted = await call(manager, 'delete_note', { id: 'n1' });
    expect(deleted.ok).toBe(false);
    expect(deleted.error).toMatch(transport === 'stdio 2025-11-25' ? /did not declare the required capability/ : /the server needs to ask the user \(elicitation\) during the call, and this driver does not answer that/);
  });
});

describe('a page to visit (URL mode)', () => {
  it('shows the host to the driver, opens the page only after a yes, and never for a non-web URL', async () => {
    const asked: ElicitRequest[] = [];
    const opened: string[] = [];
    const interaction: McpInteraction = {
      supports: { url: true },
      elicit: async (request) => (asked.push(request), { action: 'accept' }),
      open: async (url) => void opened.push(url),
    };
    const { manager } = await open('stdio 2026-07-28', interaction);
    const visited = await call(manager, 'open_link');
    expect(visited.content).toBe('visited: accept');
    expect(asked).toEqual([{ mode: 'url', server: 'm', message: 'Sign in to the service', url: 'https://auth.example.com/start?x=1', host: 'auth.example.com' }]);
    expect(opened).toEqual(['https://auth.example.com/start?x=1']);
  });

  it('is not offered when the driver only answers forms', async () => {
    const { manager } = await open('stdio 2026-07-28', yesInteraction());
    const visited = await call(manager, 'open_link');
    expect(visited.ok).toBe(false);
    expect(visited.error).toContain('the server needs to ask the user (elicitation) during the call, and this driver does not answer that');
  });
});

describe('the --yes policy', () => {
  it('finds a form\'s defaults only when every field has one of its own type', () => {
    const form = (properties: Record<string, Record<string, unknown>>) => ({ properties, required: [] });
    expect(formDefaults(form({ a: { type: 'string', default: 'x' }, b: { type: 'number', default: 1.5 }, c: { type: 'integer', default: 2 }, d: { type: 'boolean', default: true }, e: { type: 'string', enum: ['p', 'q'], default: 'q' } }))).toEqual({ a: 'x', b: 1.5, c: 2, d: true, e: 'q' });
    expect(formDefaults(form({ a: { type: 'string', default: 'x' }, b: { type: 'string' } }))).toBeUndefined();
    expect(formDefaults(form({ a: { type: 'integer', default: 1.5 } }))).toBeUndefined();
    expect(formDefaults(form({ a: { type: 'string', enum: ['p'], default: 'z' } }))).toBeUndefined();
    expect(formDefaults(form({ a: { type: 'number', default: '3' } }))).toBeUndefined();
    expect(formDefaults(form({}))).toBeUndefined();
  });
});
