import { isIP } from 'node:net';
import { fillCatalogText, fillValue, hasTemplate } from '../templates.js';
import { addressClass, CLASS_RANK, guardedLookup, hostClass, PrivateAddressRefused, type AddressClass } from './address-class.js';
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
    const first = url;
    /** After the first redirect: the original host's address class, and the connections that hold redirects to it. */
    let guard: RedirectGuard | undefined;
    try {
      for (let redirects = 0; ; redirects++) {
        const response = await send(url, method, headers, body, context, guard);
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel().catch(() => undefined);
          if (redirects >= MAX_REDIRECTS) throw new ToolFailure(`${context.tool.name} failed: more than ${MAX_REDIRECTS} redirects`);
          const next = new URL(location, url);
          if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new ToolFailure(`${context.tool.name} failed: redirected to a ${next.protocol} URL`);
          // A redirect may not move the request somewhere more private than the host the catalog
          // named (a public API sending it to 169.254.169.254, the cloud's metadata service).
          if (!spec.allow_private_redirects) {
            guard ??= await redirectGuard(first, context);
            guard.checkLiteral(next);
          }
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
    } finally {
      guard?.close();
    }
  },
};

/** Where redirects of one call may go: no address class more private than the original host's. */
interface RedirectGuard {
  /** Refuses a redirect to an address literal of a more private class (a name is checked as it is connected). */
  checkLiteral(next: URL): void;
  /** The fetch for the redirected requests: every address it connects to is checked (DNS rebinding included). */
  fetch: typeof fetch;
  close(): void;
}

/**
 * The guard for a call's redirects: the original host's class (the least private of the addresses
 * it resolves to; a host that no longer resolves counts as public, the strictest), and a fetch
 * whose connections look names up through `guardedLookup`. undici (Node's own fetch, as a
 * package) is loaded only here, on a call's first redirect: Node's global fetch takes no lookup.
 */
async function redirectGuard(first: URL, context: RunContext): Promise<RedirectGuard> {
  const limit = await hostClass(first.hostname).catch((): AddressClass => 'public');
  // A CommonJS package: bundled, its exports are on `default`; under Node's loader, also named.
  const undici = await import('undici');
  const { Agent, fetch: guardedFetch } = ((undici as unknown as { default?: typeof undici }).default ?? undici);
  const agent = new Agent({ connect: { lookup: guardedLookup(limit) } });
  const refuse = (next: URL, address: string, found: AddressClass): never => {
    throw new ToolFailure(
      `${context.tool.name} refused a redirect to ${next.origin}: ${address} is a ${found} address, more private than ${first.hostname} (${limit}); the catalog can allow it with http.allow_private_redirects: true`,
    );
  };
  return {
    checkLiteral(next) {
      const host = next.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!isIP(host)) return;
      const found = addressClass(host);
      if (CLASS_RANK[found] > CLASS_RANK[limit]) refuse(next, host, found);
    },
    fetch: (async (input: URL, init: RequestInit) => {
      try {
        return await guardedFetch(input, { ...(init as object), dispatcher: agent } as Parameters<typeof guardedFetch>[1]);
      } catch (error) {
        const refused = causes(error).find((e): e is PrivateAddressRefused => e instanceof PrivateAddressRefused);
        if (refused) refuse(input, `${refused.host} (${refused.address})`, refused.addressClass);
        throw error;
      }
    }) as unknown as typeof fetch,
    close: () => void agent.destroy().catch(() => undefined),
  };
}

function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

async function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, context: RunContext, guard?: RedirectGuard): Promise<Response> {
  try {
    return await (guard?.fetch ?? fetch)(url, { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}), signal: context.signal });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof ToolFailure) throw error;
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
