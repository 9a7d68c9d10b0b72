import { afterAll, beforeAll, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { startRepl } from '../repl/harness.js';
import { catalogDir, scripted } from './helpers.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

it('a running chat shows what changed when a server\'s tools change, and offers the new ones', async () => {
  const { file } = catalogDir(`toolman: 1\nname: repl-mcp\nmcp_servers:\n  s:\n${scripted('plain')}`);
  const h = await startRepl(server, { catalog: file });
  try {
    const before = h.controller.context.conversation.session;
    expect(before.selection.active.map((t) => t.name)).not.toContain('brand_new');
    // The server changes its tools (as if another client had acted); the REPL hears list_changed.
    const other = await h.manager.session();
    await other.runTurn([{ id: '1', name: 'add_tool', arguments: { name: 'brand_new' } }]);
    await h.waitFor('MCP server "s": tools added brand_new');
    await h.waitFor(() => h.controller.context.conversation.session !== before);
    expect(h.controller.context.conversation.session.selection.active.map((t) => t.name)).toContain('brand_new');
  } finally {
    await h.close();
  }
});
