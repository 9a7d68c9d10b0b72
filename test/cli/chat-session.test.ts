import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const catalog = ['-c', 'test/fixtures/catalogs/chat.yaml'];
const openai = () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${server.url}/v1` });
export const dir = () => mkdtempSync(join(tmpdir(), 'toolman-chat-session-'));

describe('one-shot chat shows the user their own words', () => {
  it('a declined call says why in the user\'s terms, not the sentence meant for the model', async () => {
    server.script([{ toolCalls: [{ name: 'delete_event', arguments: { id: 'e1' } }] }, { text: 'Not deleted.' }]);
    const run = await runBin([...catalog, 'chat', '--prompt', 'delete e1', '--no-transcript'], { env: openai() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('⊘ delete_event declined: it needs approval and there is no terminal to ask; --yes approves\n');
    expect(run.stderr).not.toContain('the user declined');
    // The model is still told, in its own terms.
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('the user declined to run delete_event');
  });
});
