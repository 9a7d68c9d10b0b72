import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** A v2 SDK client that speaks 2026-07-28 (it probes with server/discover; `pin` refuses a fallback). */
export async function connectModern(url: string, options: { elicit?: (message: string, schema: unknown) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> }; token?: string } = {}) {
  const client = new Client({ name: 'toolman-test-modern', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const seen = { elicitations: [] as { message: string; schema: unknown }[] };
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      seen.elicitations.push({ message: params.message, schema: params.requestedSchema });
      return answer(params.message, params.requestedSchema);
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {});
  await client.connect(transport);
  return { client, seen };
}

export const MODERN = '2026-07-28';

/** The `_meta` envelope every 2026-07-28 request carries (`basic/index.mdx` §_meta). */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC messages of the answer: one for a JSON body, each event's for an SSE stream. */
  messages: Record<string, unknown>[];
  /** The response to the request (the message with its id). */
  response: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } | undefined;
}

/**
 * One raw 2026-07-28 request, with the standard headers made from the body unless `headers`
 * overrides them (a value of null leaves a header out).
 */
export async function modernRequest(url: string, method: string, params: Record<string, unknown> = {}, options: { headers?: Record<string, string | null>; capabilities?: Record<string, unknown>; id?: number | string; httpMethod?: string; token?: string } = {}): Promise<RawAnswer> {
  const id = options.id ?? Math.floor(Math.random() * 1e9);
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...envelope(options.capabilities), ...((params._meta as object) ?? {}) } } };
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[key.toLowerCase()];
    else headers[key.toLowerCase()] = value;
  }
  const res = await fetch(url, { method: options.httpMethod ?? 'POST', headers, body: JSON.stringify(body) });
  return readAnswer(res, id);
}

export async function readAnswer(res: Response, id: unknown): Promise<RawAnswer> {
  const text = await res.text();
  const messages: Record<string, unknown>[] = [];
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data) messages.push(JSON.parse(data) as Record<string, unknown>);
    }
  } else if (text) {
    messages.push(JSON.parse(text) as Record<string, unknown>);
  }
  const response = messages.find((m) => m.id === id || (m.id === null && 'error' in m)) as RawAnswer['response'];
  return { status: res.status, headers: res.headers, messages, response };
}
