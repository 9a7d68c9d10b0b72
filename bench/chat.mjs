// The live loop's own cost, against the tests' scripted model server (no network): toolman's
// time per round, everything but waiting for the server, on catalogs/large.yaml: turns of two
// rounds (one tool call, then the answer), median per round of the turns after 5 warm-up turns,
// in one process. A one-shot `toolman chat`'s whole process is measured in bench/one-shot.mjs.
//   node bench/chat.mjs [--quick]
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

  await server.close();
  return { own_per_round_ms: median(perRound), turns };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await chatBench({ quick: process.argv.includes('--quick') }));
