import { ModelCallError } from '../providers/model-errors.js';
import type { ProviderName } from '../providers/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { isValidHeader } from '../shared/fetch-headers.js';
import { isRecord } from '../shared/is-record.js';
import { parseJsonText } from '../shared/json-text.js';
import { appendToOutputFile, prepareOutputFile } from '../shared/output-file.js';
import type { SecretSet } from '../shared/secrets.js';
import { RecordedResponse } from './recorded-response.js';
import { describeDifferences, requestDifferences, toolOfResult } from './request-diff.js';

/**
 * Recordings of a conversation with a provider, at the HTTP level: each request body as sent and
 * the response as it came (a streamed one as its raw event text), one JSON line each, after a
 * header that says which provider and model. Replaying feeds the same bytes to the same SDK, so
 * the whole path from the wire to the loop runs, with no network and no key.
 */
export interface RecordingHeader {
  type: 'recording';
  version: 1;
  provider: ProviderName;
  model: string;
  base_url: string | null;
  /** The catalog files, relative to the recording's folder: a replay without --catalog uses them. */
  catalog?: string[];
  profile?: string | null;
  created: string;
}

/** What the user typed, in order: a replay without --prompt says the same. */
export interface RecordedPrompt {
  type: 'prompt';
  text: string;
}

export interface RecordedExchange {
  type: 'exchange';
  request: { method: string; path: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: string };
}

/** Headers worth keeping: what the SDKs read to parse the body. Never credentials. */
const KEPT_HEADERS = ['content-type', 'retry-after', 'request-id', 'x-request-id'];

/**
 * A fetch that records every exchange into `file` (created now, with its header) and otherwise
 * behaves like `inner`. Secrets are redacted from what is written; a streamed response is
 * recorded as it passes through, without delaying it.
 */
export function recordingFetch(file: string, header: Omit<RecordingHeader, 'type' | 'version' | 'created'>, secrets: SecretSet, inner: typeof fetch = fetch, options: { replace?: boolean } = {}): typeof fetch {
  prepareOutputFile(file, '--record', options.replace ? 'replace' : 'new');
  appendToOutputFile(file, JSON.stringify({ type: 'recording', version: 1, ...header, created: new Date().toISOString() } satisfies RecordingHeader) + '\n');
  return async (input, init) => {
    const response = await inner(input, init);
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const requestBody = typeof init?.body === 'string' ? safeParse(init.body) : null;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const write = (body: string) => {
      const exchange: RecordedExchange = { type: 'exchange', request: { method: init?.method ?? 'GET', path: url.pathname, body: requestBody }, response: { status: response.status, headers, body: redactStream(body, secrets) } };
      appendToOutputFile(file, secrets.redact(JSON.stringify(exchange)) + '\n');
    };
    if (!response.body) {
      write('');
      return response;
    }
    const [forCaller, forRecord] = response.body.tee();
    void new Response(forRecord).text().then(write, () => write('(the response stream broke off)'));
    return new Response(forCaller, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * A streamed body with secrets removed also where they are cut across events: the model may
 * stream a secret in two deltas, which redacting the text as a whole would not see. Events that
 * change are written again.
 */
export function redactStream(body: string, secrets: SecretSet): string {
  if (secrets.size === 0 || !body.includes('data:')) return body;
  const lines = body.split('\n');
  const events: { line: number; value: unknown }[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('data:')) return;
    try {
      events.push({ line: i, value: JSON.parse(line.slice(5)) });
    } catch {
      // [DONE] and other plain data
    }
  });
  // A stream is the same field event after event (`choices.0.delta.content`, `delta.partial_json`):
  // the strings at one path, in order, are the pieces of one text.
  const streams = new Map<string, { holder: Record<string, unknown> | unknown[]; key: string | number; event: number }[]>();
  const walk = (value: unknown, path: string, event: number) => {
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : isRecord(value) ? Object.entries(value) : [];
    for (const [key, item] of entries) {
      const at = `${path}.${key}`;
      if (typeof item === 'string') {
        let slots = streams.get(at);
        if (!slots) streams.set(at, (slots = []));
        slots.push({ holder: value as Record<string, unknown> | unknown[], key, event });
      } else walk(item, at, event);
    }
  };
  events.forEach((e, i) => walk(e.value, '', i));
  const changed = new Set<number>();
  for (const slots of streams.values()) {
    const pieces = slots.map((slot) => (slot.holder as Record<string | number, string>)[slot.key]!);
    const redacted = secrets.redactPieces(pieces);
    slots.forEach((slot, i) => {
      if (redacted[i] === pieces[i]) return;
      (slot.holder as Record<string | number, string>)[slot.key] = redacted[i]!;
      changed.add(slot.event);
    });
  }
  for (const i of changed) lines[events[i]!.line] = `data: ${JSON.stringify(events[i]!.value)}`;
  return lines.join('\n');
}

/** Notes a user message in a recording (before the requests it leads to). */
export function recordPrompt(file: string, text: string, secrets: SecretSet): void {
  appendToOutputFile(file, secrets.redact(JSON.stringify({ type: 'prompt', text } satisfies RecordedPrompt)) + '\n');
}

/** A recording read back: its header, the user's messages and the exchanges. */
export function readRecording(text: string, file: string): { header: RecordingHeader; prompts: string[]; exchanges: RecordedExchange[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines.length ? parseJsonText(lines[0]!, `${file}:1`) : undefined;
  if (!isRecord(header) || header.type !== 'recording' || header.version !== 1 || typeof header.provider !== 'string' || typeof header.model !== 'string') {
    throw new ToolmanError(ErrorCode.USAGE, `${file} is not a toolman recording (its first line must be {"type": "recording", "version": 1, ...})`, { hint: 'make one with toolman chat --record FILE' });
  }
  // Its words reach messages and the status line: no control characters, sensible lengths.
  const texts = [header.provider, header.model, header.base_url, header.profile, ...(Array.isArray(header.catalog) ? header.catalog : [])];
  if (texts.some((t) => t !== undefined && t !== null && (typeof t !== 'string' || t.length > 1000 || /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(t)))) {
    throw new ToolmanError(ErrorCode.USAGE, `${file}:1: the recording's header holds a value that is not plain text (provider, model, base_url, profile, catalog)`, { hint: 'recordings are made by toolman chat --record; this one was changed' });
  }
  const exchanges: RecordedExchange[] = [];
  const prompts: string[] = [];
  lines.slice(1).forEach((line, i) => {
    const value = parseJsonText(line, `${file}:${i + 2}`);
    if (isRecord(value) && value.type === 'prompt' && typeof value.text === 'string') return void prompts.push(value.text);
    const problem = exchangeProblem(value);
    if (problem) throw new ToolmanError(ErrorCode.USAGE, `${file}:${i + 2} is not a recorded exchange: ${problem}`, { hint: 'recordings are made by toolman chat --record; this line was changed or cut' });
    exchanges.push(value as unknown as RecordedExchange);
  });
  return { header: header as unknown as RecordingHeader, prompts, exchanges };
}

/** Why a recording's line cannot be replayed, or undefined when it can: recordings are untrusted. */
function exchangeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value.type !== 'exchange') return 'not {"type": "exchange", ...}';
  const { request, response } = value;
  if (!isRecord(request) || typeof request.path !== 'string' || typeof request.method !== 'string') return 'request needs a method and a path';
  if (!isRecord(response)) return 'no response';
  if (typeof response.status !== 'number' || !Number.isInteger(response.status) || response.status < 200 || response.status > 599) return 'response.status must be an HTTP status from 200 to 599';
  if (typeof response.body !== 'string') return 'response.body must be text';
  if (!isRecord(response.headers)) return 'response.headers must be an object';
  for (const [name, header] of Object.entries(response.headers)) {
    // As the Fetch standard takes a pair (isValidHeader): else the reply could not be made, and the
    // SDK would retry it as a lost connection into the next exchange.
    if (typeof header !== 'string' || name.length > 100 || header.length > 1000 || !isValidHeader(name, header)) return `response header "${name.slice(0, 40)}" is not a valid header`;
  }
  return undefined;
}

/** A request with no recording to answer it: says how it differs from the closest one. */
export class ReplayMismatchError extends ModelCallError {
  constructor(message: string, hint: string) {
    super('bad_request', message, undefined, undefined, hint);
  }
}

/**
 * A fetch that answers from a recording. Each request is matched to an unused recorded exchange
 * by content (the whole body, compared key by key, so key order and position in the recording do
 * not matter); each exchange answers once. When the only differences are in tool results, the
 * tools answered differently from the recording (a catalog change): the recorded reply is used,
 * and `onDifference` says which results changed. Any other difference stops the replay with the
 * differences from the closest recorded request.
 */
export function replayFetch(exchanges: readonly RecordedExchange[], onDifference: (message: string) => void): typeof fetch {
  const used = new Set<number>();
  // Later requests carry the earlier results again: each changed result is reported once.
  const reported = new Set<string>();
  // A request is compared as written first: one sent exactly as recorded (the usual case: the
  // same SDK wrote both) is that exchange's, with no parse and no canonical form of either. Else
  // each recorded body is put in canonical form once, when first compared: every request would
  // otherwise do it again for every exchange left (each body holds all the tools sent).
  const recordedKeys: (string | undefined)[] = [];
  const recordedKey = (i: number) => (recordedKeys[i] ??= canonicalJson(exchanges[i]!.request.body));
  const recordedTexts: (string | undefined)[] = [];
  const recordedText = (i: number) => (recordedTexts[i] ??= JSON.stringify(exchanges[i]!.request.body));
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const candidates = exchanges.map((e, i) => ({ e, i })).filter(({ e, i }) => !used.has(i) && e.request.path === url.pathname);
    // No recorded request is this one: the closest, when only tool results differ; else the differences.
    const closestOrThrow = (body: unknown): (typeof candidates)[number] => {
      const ranked = candidates.map((c) => ({ ...c, differences: requestDifferences(c.e.request.body, body) })).sort((a, b) => a.differences.length - b.differences.length || a.i - b.i);
      const closest = ranked[0];
      if (!closest) {
        throw new ReplayMismatchError(`the recording has no ${used.size ? 'more exchanges' : 'exchange'} for ${url.pathname} (${used.size} of ${exchanges.length} used)`, 'the conversation went further than the recorded one; record it again with --record');
      }
      if (closest.differences.every((d) => d.toolResult)) {
        const fresh = closest.differences.filter((d) => !reported.has(canonicalJson([d.path, d.recorded, d.now])));
        for (const d of fresh) reported.add(canonicalJson([d.path, d.recorded, d.now]));
        const tools = [...new Set(fresh.map((d) => toolOfResult(body, d.path) ?? 'a tool'))];
        if (fresh.length) onDifference(`replay: ${tools.join(', ')} answered differently from the recording (the recorded reply is used):\n${describeDifferences(fresh)}`);
        return closest;
      }
      throw new ReplayMismatchError(`replay: this request matches no recorded one; the closest (exchange ${closest.i + 1}) differs in:\n${describeDifferences(closest.differences)}`, 'a catalog or option change altered what is sent; record the session again with --record to accept it');
    };
    const sent = typeof init?.body === 'string' ? init.body : undefined;
    let match = sent === undefined ? undefined : candidates.find(({ i }) => recordedText(i) === sent);
    if (!match) {
      const body = sent !== undefined ? safeParse(sent) : null;
      const key = canonicalJson(body);
      match = candidates.find(({ i }) => recordedKey(i) === key) ?? closestOrThrow(body);
    }
    used.add(match.i);
    const { status, headers, body: recorded } = match.e.response;
    // A recorded rate limit or server error is retried as it was, but without waiting: nothing is live.
    // Its own retry-after goes, in whatever case it was written (a "Retry-After" kept beside ours
    // would be read combined, "<date>, 0": a date the retry then waits for).
    const replayed = status === 429 || status >= 500 ? { ...Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'retry-after')), 'retry-after': '0' } : headers;
    // Not Node's Response: on Node 20 that loads all of its fetch, for a reply no connection carries.
    return new RecordedResponse(status === 204 || status === 205 || status === 304 ? null : recorded, { status, headers: replayed }) as unknown as Response;
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
