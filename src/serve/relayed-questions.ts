import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, ElicitRequestFormParams, ElicitRequestURLParams, ServerContext } from '@modelcontextprotocol/server';
import type { CallAsker, ElicitAnswer, ElicitRequest } from '../manager/mcp-client.js';
import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import type { SecretSet } from '../shared/secrets.js';
import { canAskForm } from './elicit-approval.js';

/**
 * How long serve's client has to answer an upstream server's question: a person answers, so
 * minutes, as for approvals; past it the upstream server is told `cancel` and the call ends.
 */
export const QUESTION_TIMEOUT_MS = 10 * 60_000;
/** Bounds of a relayed form: what a client shows is the server's, and the server is untrusted. */
const MAX_FIELDS = 50;
const MAX_FIELD_TEXT = 500;
const MAX_ENUM = 100;
/** Bounds of an answer the client sends back: the upstream server gets no more than this. */
const MAX_ANSWER_TEXT = 10_000;
const MAX_ANSWER_ITEMS = 100;

/** The primitive schema keywords a form field may have (2025-11-25 and 2026-07-28 `client/elicitation.mdx` §Supported Schema Types). */
const FIELD_TEXT_KEYS = ['type', 'title', 'description', 'format', 'pattern'] as const;
const FIELD_NUMBER_KEYS = ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const;

/** A question as serve's client is shown it: every text cleaned, cut and redacted, the form within its bounds. */
export type RelayedQuestion = { mode: 'form'; params: ElicitRequestFormParams } | { mode: 'url'; params: ElicitRequestURLParams };

export function relayedQuestion(request: ElicitRequest, secrets: SecretSet): RelayedQuestion {
  const message = secrets.redact(`MCP server "${request.server}" asks: ${request.message}`);
  if (request.mode === 'url') {
    // A fresh id: the upstream server's own id (if it gave one) stays between it and toolman.
    return { mode: 'url', params: { mode: 'url', message, url: secrets.redact(request.url), elicitationId: randomBytes(12).toString('base64url') } };
  }
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, field] of Object.entries(request.schema.properties).slice(0, MAX_FIELDS)) {
    Object.defineProperty(properties, secrets.redact(name), { value: cleanField(field, secrets), enumerable: true, writable: true, configurable: true });
  }
  const required = request.schema.required.filter((name) => Object.hasOwn(properties, name));
  return { mode: 'form', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: properties as never, ...(required.length ? { required } : {}) } } };
}

/** One field, with only the keywords the spec allows, texts cleaned and cut, enums bounded. */
function cleanField(field: Record<string, unknown>, secrets: SecretSet, depth = 0): Record<string, unknown> {
  const text = (value: unknown) => secrets.redact(plainText(String(value))).slice(0, MAX_FIELD_TEXT);
  const out: Record<string, unknown> = {};
  for (const key of FIELD_TEXT_KEYS) if (typeof field[key] === 'string') out[key] = text(field[key]);
  for (const key of FIELD_NUMBER_KEYS) if (typeof field[key] === 'number' && Number.isFinite(field[key])) out[key] = field[key];
  const value = field.default;
  if (typeof value === 'string') out.default = text(value);
  else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') out.default = value;
  else if (Array.isArray(value)) out.default = value.filter((v): v is string => typeof v === 'string').slice(0, MAX_ENUM).map(text);
  for (const key of ['enum', 'enumNames'] as const) {
    if (Array.isArray(field[key])) out[key] = (field[key] as unknown[]).filter((v): v is string => typeof v === 'string').slice(0, MAX_ENUM).map(text);
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(field[key])) out[key] = (field[key] as unknown[]).filter(isRecord).slice(0, MAX_ENUM).map((o) => ({ const: text(o.const), ...(typeof o.title === 'string' ? { title: text(o.title) } : {}) }));
  }
  // A multi-select's items are one level of enum; deeper nesting is no form field, and would
  // otherwise recurse as deep as a hostile server nests it.
  if (isRecord(field.items) && depth === 0) out.items = cleanField(field.items, secrets, depth + 1);
  return out;
}

/**
 * The client's answer as the upstream server gets it: an action of the three (anything else
 * declines), and, when it accepts a form, only the fields the form asked for, each a primitive
 * (or a list of strings, for a multi-select) within bounds, texts cleaned. The client is as
 * untrusted as the server.
 */
export function clientAnswer(raw: unknown, request: ElicitRequest): ElicitAnswer {
  const answer = isRecord(raw) ? raw : {};
  if (answer.action === 'cancel') return { action: 'cancel' };
  if (answer.action !== 'accept') return { action: 'decline' };
  if (request.mode === 'url') return { action: 'accept' };
  const given = isRecord(answer.content) ? answer.content : {};
  const content: Record<string, unknown> = {};
  for (const name of Object.keys(request.schema.properties)) {
    if (!Object.hasOwn(given, name)) continue;
    const value = given[name];
    let clean: unknown;
    if (typeof value === 'string') clean = plainText(value).slice(0, MAX_ANSWER_TEXT);
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') clean = value;
    else if (Array.isArray(value)) clean = value.filter((v): v is string => typeof v === 'string').slice(0, MAX_ANSWER_ITEMS).map((v) => plainText(v).slice(0, MAX_ANSWER_TEXT));
    if (clean !== undefined) Object.defineProperty(content, name, { value: clean, enumerable: true, writable: true, configurable: true });
  }
  return { action: 'accept', content };
}

/** Whether a client declared the elicitation mode a question needs (form: see `canAskForm`; URL: `elicitation.url`). */
export function canAsk(capabilities: ClientCapabilities | undefined, mode: 'form' | 'url', era: 'legacy' | 'modern'): boolean {
  if (mode === 'form') return canAskForm(capabilities, era);
  return isRecord(capabilities?.elicitation) && capabilities.elicitation.url !== undefined;
}

/** The text a client gets when a question was declined for it: it could not be asked. */
export function unansweredText(questions: readonly ElicitRequest[], secrets: SecretSet): string {
  // The server's words are as untrusted here as in a relayed question: cleaned, cut, redacted.
  const what = questions.map((q) => secrets.redact(`MCP server "${plainText(q.server)}" asked "${plainText(q.message).slice(0, 200)}"`) + (q.mode === 'url' ? ' (a page to visit)' : '')).join('; ');
  return `toolman serve: ${what}, and this MCP client cannot answer such questions (it did not declare elicitation${questions.some((q) => q.mode === 'url') ? ' in URL mode' : ''}); toolman declined for it.`;
}

/**
 * The asker of a call from a 2025-11-25 session: the question goes to the client as an
 * `elicitation/create` request on the call's own stream (`ctx.mcpReq.send`, related to the call,
 * see `elicitApproval`), while the call waits, for at most QUESTION_TIMEOUT_MS. A client without
 * the capability is not asked: the question is declined and kept in `unanswered`, for the
 * call's error text. A client that fails to answer, or answers malformed, declines.
 */
export function sessionAsker(ctx: ServerContext, capabilities: () => ClientCapabilities | undefined, secrets: SecretSet, unanswered: ElicitRequest[], log: (line: string) => void): CallAsker {
  return async (request, signal) => {
    if (!canAsk(capabilities(), request.mode, 'legacy')) {
      unanswered.push(request);
      log(`declined for the client: MCP server "${request.server}" asked a question and the client cannot answer it (no elicitation${request.mode === 'url' ? ' in URL mode' : ''})`);
      return { action: 'decline' };
    }
    const question = relayedQuestion(request, secrets);
    try {
      const result = await ctx.mcpReq.send({ method: 'elicitation/create', params: question.params }, { signal, timeout: QUESTION_TIMEOUT_MS });
      return clientAnswer(result, request);
    } catch {
      return signal.aborted ? { action: 'cancel' } : { action: 'decline' };
    }
  };
}

/** A call's result with what it could not ask said beside it: the client learns why the server got a decline. */
export function withUnanswered<R extends { content: unknown[] }>(result: R, questions: readonly ElicitRequest[], secrets: SecretSet): R {
  return { ...result, content: [...result.content, { type: 'text', text: unansweredText(questions, secrets) }] };
}
