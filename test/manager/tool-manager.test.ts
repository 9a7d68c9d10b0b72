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
});
