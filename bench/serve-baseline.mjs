// The baseline `bench/serve.mjs` holds `toolman serve --port` against: a plain MCP server written
// the way the official TypeScript SDK's v2 packages document it (@modelcontextprotocol/server, the
// package and version toolman's serve runs on, and @modelcontextprotocol/node, the SDK's Node
// adapters, which toolman no longer uses: it hands the SDK's web-standard handlers the parsed body
// and a view of the Node request itself, src/serve/parsed-body-handler.ts), with the one tool the
// benchmark calls and nothing of toolman's. Streamable HTTP on 127.0.0.1, both
// protocol revisions on one endpoint, as toolman serves them:
//  - 2026-07-28 (per-request `_meta`): `createMcpHandler` with a per-request McpServer, through
//    `toNodeHandler` (the SDK's serving guide);
//  - 2025-11-25 (`initialize`): a sessionful `NodeStreamableHTTPServerTransport` per session,
//    routed with the SDK's `isLegacyRequest` (its documented pattern for keeping sessions next to
//    a strict modern handler).
// In front, the SDK's own localhost Host/Origin guards (its README for plain node:http).
// The tool does what the catalog's mock tool `instant` does for toolman: its arguments checked
// against the same JSON Schema (the SDK's `fromJsonSchema`, ajv), `{ok: true, q}` answered as
// JSON text and as structuredContent. What it does not do that toolman does on every call (so
// the comparison is toolman's whole call path against the SDK's bare one): no call slots or
// limits, no timeout, no secret redaction, no result size estimate or truncation, no principal
// or session binding beyond the SDK's own, no `_meta` (duration) in the answer.
//   node bench/serve-baseline.mjs   → prints "listening at URL" on stderr
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { localhostHostValidation, localhostOriginValidation, NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, fromJsonSchema, isLegacyRequest, McpServer } from '@modelcontextprotocol/server';

export const INSTANT_PARAMETERS = { type: 'object', properties: { q: { type: 'string', description: 'A query' }, n: { type: 'integer', minimum: 0, description: 'A number' } }, required: ['q'] };

// Built once, as a developer would: the factory below runs for every request.
const inputSchema = fromJsonSchema(INSTANT_PARAMETERS);

function mcpServer() {
  const server = new McpServer({ name: 'baseline', version: '1.0.0' });
  server.registerTool('instant', { description: 'Answers at once, to measure what serve adds around a call.', inputSchema, annotations: { readOnlyHint: true, openWorldHint: false } }, async ({ q }) => {
    const result = { ok: true, q };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  });
  return server;
}

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const modern = toNodeHandler(createMcpHandler(() => mcpServer(), { legacy: 'reject' }));
const sessions = new Map();

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const http = createServer(async (req, res) => {
  try {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    const live = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (live) return await live.handleRequest(req, res, body);
    if (req.method === 'POST' && body?.method === 'initialize') {
      const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport), onsessionclosed: (id) => sessions.delete(id) });
      await mcpServer().connect(transport);
      return await transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && !(await isLegacyRequest(await toWebRequest(req, body), body))) return await modern(req, res, body);
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad request' }, id: null }));
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  }
});

http.listen(0, '127.0.0.1', () => process.stderr.write(`listening at http://127.0.0.1:${http.address().port}/mcp\n`));
process.on('SIGTERM', () => process.exit(0));
