import { ErrorCode, ToolmanError } from '../shared/errors.js';

export interface ApiCredentials {
  apiKey: string;
  /** Override for tests and proxies (e.g. a local fake server). */
  baseUrl?: string;
  timeoutMs?: number;
}

/** POSTs JSON and returns the parsed reply; HTTP and network failures become clear errors. */
export async function postJson(url: string, body: unknown, headers: Record<string, string>, what: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new ToolmanError(ErrorCode.PROVIDER, `${what} failed: ${reason}`, { hint: 'check the network and the API base URL' });
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } | string };
      message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? message);
    } catch {
      // not JSON: keep the text excerpt
    }
    throw new ToolmanError(ErrorCode.PROVIDER, `${what} failed: HTTP ${response.status}: ${message}`, {
      hint: response.status === 401 || response.status === 403 ? 'check the API key' : undefined,
    });
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ToolmanError(ErrorCode.PROVIDER, `${what} answered with something that is not JSON: ${text.slice(0, 120)}`);
  }
}
