import { fillCatalogText, fillValue, hasTemplate } from '../templates.js';
import { ToolFailure, type RunContext, type ToolRunner } from '../runner.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 4 << 20;
const MAX_REDIRECTS = 5;
/** Dropped on a redirect to another origin even when written literally (as the Fetch standard does). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * An HTTP request from templates: `{{param}}` in the URL (each value URL-encoded, and in the path
 * always exactly one segment), headers and body; `${env:NAME}` secrets in URL and headers, whose
 * values the executor redacts from everything it returns or logs. The body defaults to the
 * arguments as JSON for methods that take one. Redirects are followed by hand, so that one to
 * another origin never carries the headers that hold secrets. The response body is read up to
 * `max_response_bytes`. A non-2xx answer is a tool error with the status and an excerpt of the body.
 */
export const httpRunner: ToolRunner<'http'> = {
  kind: 'http',
  async run({ http: spec }, args, context) {
    let method = (spec.method ?? 'GET').toUpperCase();
    let url = new URL(buildUrl(spec.url, args, context));
    const headers: Record<string, string> = {};
    /** Headers whose catalog text holds a `${env:...}`: sent to the first origin only. */
    const secretHeaders = new Set<string>();
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      headers[name] = fillCatalogText(value, args, context.env, context.secrets);
      if (/\$\{env:/.test(value)) secretHeaders.add(name);
    }
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const value = spec.body === undefined ? args : fillValue(spec.body, args);
      body = typeof value === 'string' ? value : JSON.stringify(value);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = typeof value === 'string' ? 'text/plain' : 'application/json';
    }
    const origin = url.origin;
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, method, headers, body, context);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel().catch(() => undefined);
        if (redirects >= MAX_REDIRECTS) throw new ToolFailure(`${context.tool.name} failed: more than ${MAX_REDIRECTS} redirects`);
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new ToolFailure(`${context.tool.name} failed: redirected to a ${next.protocol} URL`);
        if (next.origin !== origin) {
          for (const name of Object.keys(headers)) if (secretHeaders.has(name) || CREDENTIAL_HEADERS.has(name.toLowerCase())) delete headers[name];
        }
        // 303, and 301/302 after a POST, continue as GET without the body (as browsers and fetch do).
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
          for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
        }
        url = next;
        continue;
      }
      const limit = spec.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      const text = await readBody(response, limit, context);
      if (!response.ok) throw new ToolFailure(`${context.tool.name} failed: HTTP ${response.status} ${response.statusText}${text ? `: ${context.secrets.redact(text).slice(0, 500)}` : ''}`);
      const type = response.headers.get('content-type') ?? '';
      if (type.includes('json')) {
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      }
      return text;
    }
  },
};

async function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, context: RunContext): Promise<Response> {
  try {
    return await fetch(url, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}), signal: context.signal });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    // undici says "fetch failed" and keeps the reason (refused, DNS, TLS) in `cause`.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    const detail = cause ? `${(cause as NodeJS.ErrnoException).code ? `${(cause as NodeJS.ErrnoException).code}: ` : ''}${cause.message}` : error instanceof Error ? error.message : String(error);
    throw new ToolFailure(`${context.tool.name} failed: cannot reach ${url.origin}: ${detail}`);
  }
}

/** The body as text, refusing one over `limit` bytes without reading the rest. */
async function readBody(response: Response, limit: number, context: RunContext): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new ToolFailure(`${context.tool.name} failed: the response is ${declared} bytes, over max_response_bytes (${limit})`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ToolFailure(`${context.tool.name} failed: the response is over max_response_bytes (${limit}); stopped reading at ${size} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Fills the URL template. Values are URL-encoded; in the path, a value must stay one non-empty
 * segment: `..` or `.` would walk the path (URLs resolve them even encoded), and an empty one
 * changes which resource is meant, so the call is refused instead.
 */
export function buildUrl(template: string, args: Record<string, unknown>, context: Pick<RunContext, 'env' | 'secrets' | 'tool'>): string {
  const split = template.search(/[?#]/);
  const path = split < 0 ? template : template.slice(0, split);
  const tail = split < 0 ? '' : template.slice(split);
  const start = path.indexOf('://') >= 0 ? path.indexOf('/', path.indexOf('://') + 3) : 0;
  const authority = start < 0 ? path : path.slice(0, start);
  const segments = start < 0 ? [] : path.slice(start).split('/');
  const filledSegments = segments.map((segment) => {
    const filled = fillCatalogText(segment, args, context.env, context.secrets, encodeURIComponent);
    if (hasTemplate(segment) && (filled === '' || filled === '.' || filled === '..')) {
      throw new ToolFailure(`${context.tool.name} refused: an argument would make the URL path segment ${JSON.stringify(segment)} ${filled === '' ? 'empty' : `"${filled}"`}`);
    }
    return filled;
  });
  const fill = (text: string) => fillCatalogText(text, args, context.env, context.secrets, encodeURIComponent);
  return fill(authority) + filledSegments.join('/') + fill(tail);
}
