// The load generator of `bench/serve.mjs`: N clients at once, each on its own keep-alive
// connection, each sending a fixed number of `tools/call`s one after the other, as raw JSON-RPC
// over streamable HTTP. Raw HTTP rather than an SDK client so that the generator's own CPU (it
// shares the machine with the server it drives) is small and exactly the same for every server:
// the same bytes go out, and every answer is read the same way (JSON or SSE, the server picks)
// and checked (a result, not an error, carrying the `q` that was sent).
//   era 'legacy': 2025-11-25, each client opens a session (initialize, notifications/initialized)
//     and sends Mcp-Session-Id;
//   era 'modern': 2026-07-28, no session, every request carries the `_meta` envelope and the
//     standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
import { Agent, request } from 'node:http';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'toolman-bench', version: '1.0.0' } };

function post(agent, url, headers, body, method = 'POST') {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message answering `id` in a JSON or SSE body. */
function answerOf(reply, id) {
  if (!(reply.headers['content-type'] ?? '').includes('text/event-stream')) return reply.text ? JSON.parse(reply.text) : undefined;
  for (const event of reply.text.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
    if (!data) continue;
    const message = JSON.parse(data);
    if (message.id === id) return message;
  }
  return undefined;
}

/** One client: its connection, and (2025-11-25) its session. */
async function openClient(url, era, index) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  if (era === 'modern') return { agent, headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'instant' } };
  const init = await post(agent, url, {}, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: `toolman-bench-${index}`, version: '1.0.0' } } }));
  const session = init.headers['mcp-session-id'];
  if (init.status !== 200 || !session) throw new Error(`initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY };
  const initialized = await post(agent, url, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return { agent, headers };
}

/**
 * `clients` clients at once against `url`, `calls` calls each. Returns the wall time of the
 * calls (sessions are opened before the clock starts), every call's latency in ms, and the
 * failures (a failed call is not counted as served).
 */
export async function drive({ url, era, clients, calls }) {
  const opened = await Promise.all(Array.from({ length: clients }, (_, i) => openClient(url, era, i)));
  const latencies = [];
  const failures = [];
  const started = process.hrtime.bigint();
  await Promise.all(
    opened.map(async (client, c) => {
      for (let i = 1; i <= calls; i++) {
        const q = `c${c}-${i}`;
        const params = { name: 'instant', arguments: { q, n: i }, ...(era === 'modern' ? { _meta: ENVELOPE } : {}) };
        const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params });
        const sent = process.hrtime.bigint();
        const reply = await post(client.agent, url, client.headers, body);
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        const answer = reply.status === 200 ? answerOf(reply, i) : undefined;
        if (!answer?.result || answer.result.isError || answer.result.structuredContent?.q !== q) failures.push(`${reply.status} ${reply.text.slice(0, 300)}`);
      }
    }),
  );
  const wall_ms = Number(process.hrtime.bigint() - started) / 1e6;
  for (const client of opened) {
    if (era === 'legacy') await post(client.agent, url, client.headers, undefined, 'DELETE').catch(() => undefined);
    client.agent.destroy();
  }
  return { wall_ms, latencies, failures };
}
