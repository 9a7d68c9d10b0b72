import { fillSecrets, fillTemplate, fillValue } from '../templates.js';
import type { ToolRunner } from '../runner.js';

/**
 * An HTTP request from templates: `{{param}}` in the URL (URL-encoded), headers and body;
 * `${env:NAME}` secrets in URL and headers, whose values the executor redacts from everything it
 * returns or logs. The body defaults to the arguments as JSON for methods that take one. A
 * non-2xx answer is a tool error with the status and an excerpt of the body.
 */
export const httpRunner: ToolRunner<'http'> = {
  kind: 'http',
  async run({ http: spec }, args, context) {
        const method = (spec.method ?? 'GET').toUpperCase();
    // Secrets first, from the catalog's own text: a `${env:...}` inside an argument value is never expanded.
    const url = fillTemplate(fillSecrets(spec.url, context.env, context.secrets), args, encodeURIComponent);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name] = fillTemplate(fillSecrets(value, context.env, context.secrets), args);
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const value = spec.body === undefined ? args : fillValue(spec.body, args);
      body = typeof value === 'string' ? value : JSON.stringify(value);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = typeof value === 'string' ? 'text/plain' : 'application/json';
    }
    const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), signal: context.signal });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}: ${text.slice(0, 500)}`);
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    }
    return text;
  },
};
