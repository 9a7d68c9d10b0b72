// The live loop's own cost, against the tests' scripted model server (no network):
//  - toolman's time per round, everything but waiting for the server, on catalogs/large.yaml:
//    turns of two rounds (one tool call, then the answer), median per round;
//  - a one-shot `toolman chat` from process start to its first request reaching the server, as a
//    ratio to `node -e 0` (ink and the unused SDK must not load).
//   node bench/chat.mjs [--quick]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForScript } from '../scripts/bundle-for-script.mjs';

const root = new URL('../', import.meta.url).pathname;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function chatBench({ quick = false } = {}) {
  const bundle = await bundleForScript('chat-bench', [
    "export { startModelServer } from './test/helpers/model-server.ts';",
    "export { ChatLoop } from './src/loop/chat-loop.ts';",
    "export { ToolManager } from './src/manager/tool-manager.ts';",
    "export { createModelClient } from './src/providers/model-clients.ts';",
  ]);
  const { startModelServer, ChatLoop, ToolManager, createModelClient } = await import(bundle);
  const server = await startModelServer();
  const reply = (request, index) => (index % 2 === 0 ? { toolCalls: [{ name: 'billing_list_invoices', arguments: { account_id: 'acc_42' } }] } : { text: 'Done.' });

  // Per round, in process.
  const manager = await ToolManager.open({ catalogs: [join(root, 'catalogs', 'large.yaml')], cwd: root });
  const client = await createModelClient('openai', 'gpt-4o', { apiKey: 'bench', baseUrl: `${server.url}/v1` });
  let waiting = 0;
  const send = client.send.bind(client);
  client.send = async (...args) => {
    const started = performance.now();
    try {
      return await send(...args);
    } finally {
      waiting += performance.now() - started;
    }
  };
  const session = await manager.session({});
  const loop = new ChatLoop({ client, session });
  const turns = quick ? 20 : 100;
  const perRound = [];
  server.script(reply);
  for (let i = 0; i < turns + 5; i++) {
    loop.reset();
    waiting = 0;
    const started = performance.now();
    const summary = await loop.run('List the invoices of account acc_42.');
    const own = (performance.now() - started - waiting) / summary.rounds;
    if (i >= 5) perRound.push(own);
  }
  await manager.close();

  // Process start to the first request, per catalog. The catalog's clean validation is remembered
  // (as on any user's machine after the first run): a first run here warms that cache.
  const cacheDir = mkdtempSync(join(tmpdir(), 'toolman-bench-cache-'));
  const bare = [];
  const first = { assistant: [], large: [] };
  const runs = quick ? 5 : 15;
  for (let i = -1; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    if (i >= 0) bare.push(performance.now() - t0);
    for (const catalog of Object.keys(first)) {
      let reached;
      server.script((request, index) => {
        reached ??= performance.now();
        return reply(request, index);
      });
      const started = performance.now();
      const child = spawn(process.execPath, [join(root, 'bin', 'toolman.js'), '-c', join(root, 'catalogs', `${catalog}.yaml`), 'chat', '--prompt', 'List the invoices of account acc_42.', '--no-transcript'], {
        env: { ...process.env, OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: cacheDir },
        stdio: 'ignore',
      });
      await new Promise((resolve) => child.on('close', resolve));
      if (i >= 0) first[catalog].push(reached - started);
    }
  }
  await server.close();
  const bareMs = median(bare);
  return {
    own_per_round_ms: median(perRound),
    bare_node_ms: bareMs,
    first_request_ms: { assistant: median(first.assistant), large: median(first.large) },
    first_request_ratio: { assistant: median(first.assistant) / bareMs, large: median(first.large) / bareMs },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await chatBench({ quick: process.argv.includes('--quick') }));
