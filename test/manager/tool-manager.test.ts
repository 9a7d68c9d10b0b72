import { describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { ROOT } from '../helpers/paths.js';

describe('ToolManager sessions', () => {
  it('forgets a session once it is closed, so a long-running server does not keep every one', async () => {
    const manager = await ToolManager.open({ catalogs: ['catalogs/assistant.yaml'], cwd: ROOT });
    const held = () => (manager as unknown as { sessions: Set<unknown> }).sessions.size;
    const sessions = await Promise.all([manager.session(), manager.session(), manager.session()]);
    expect(held()).toBe(3);
    sessions[0]!.close();
    sessions[0]!.close(); // twice is harmless
    expect(held()).toBe(2);
    await manager.close();
    expect(held()).toBe(0);
  });

  it('sessions of one profile share the selection and the fragments formatted for it, until a session finds a tool', async () => {
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/selection.yaml'], cwd: ROOT });
    const [a, b, other] = await Promise.all([manager.session({ profile: 'coding' }), manager.session({ profile: 'coding' }), manager.session({ profile: 'full' })]);
    expect(a.selection).toBe(b.selection);
    expect(other.selection).not.toBe(a.selection);
    // Formatted once for both sessions; other options, rounds and providers are other fragments.
    const fragment = a.format('openai', 1);
    expect(b.format('openai', 1)).toBe(fragment);
    expect(b.format('openai', 1, { strict: true })).not.toBe(fragment);
    expect(b.format('anthropic', 1)).not.toBe(fragment);
    expect(other.format('openai', 1)).not.toBe(fragment);
    // A session that found a deferred tool is offered more: its fragment is its own, and the other session's is unchanged.
    expect(b.callMetaTool('tool_search', { query: 'commit history', limit: 1 })).toMatchObject({ ok: true, activated: ['git_log'] });
    const found = b.format('openai', 2);
    expect(JSON.stringify(found.payload)).toContain('git_log');
    expect(JSON.stringify(a.format('openai', 2).payload)).not.toContain('git_log');
    expect(a.format('openai', 1)).toBe(fragment);
    await manager.close();
  });

  it('remembers at most 64 selections per catalog, dropping the oldest', async () => {
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/selection.yaml'], cwd: ROOT });
    const first = await manager.session({ profile: 'coding' });
    expect((await manager.session({ profile: 'coding' })).selection).toBe(first.selection);
    // 64 other forced lists (a tool named twice is another key): the first selection is let go.
    for (let i = 1; i <= 64; i++) await manager.session({ profile: 'coding', force: Array.from({ length: i }, () => 'status') });
    expect((await manager.session({ profile: 'coding' })).selection).not.toBe(first.selection);
    await manager.close();
  });

  it('a forced tool is another selection than none forced', async () => {
    const manager = await ToolManager.open({ catalogs: ['test/fixtures/catalogs/selection.yaml'], cwd: ROOT });
    const [plain, forced] = await Promise.all([manager.session({ profile: 'coding' }), manager.session({ profile: 'coding', force: ['status'] })]);
    expect(forced.selection).not.toBe(plain.selection);
    expect(forced.format('openai', 1).payload.tool_choice).toBeDefined();
    expect(plain.format('openai', 1).payload.tool_choice).toBeUndefined();
    await manager.close();
  });
});

