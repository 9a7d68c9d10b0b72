import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import type { CallAsker } from './question-relay.js';

/**
 * What a server asks the user in the middle of a call (MCP 2026-07-28 `input_required`, or a
 * 2025 server's own request): a form, or a page to visit. Everything in it comes from the
 * server and is untrusted: text is cleaned of control sequences before a driver sees it.
 */
export type ElicitRequest =
  | { mode: 'form'; server: string; message: string; schema: FormSchema; confirmation?: string; defaults?: Record<string, string | number | boolean> }
  | { mode: 'url'; server: string; message: string; url: string; host: string };

/** A form's fields as the spec restricts them: a flat object of primitives (`client/elicitation.mdx`). */
export interface FormSchema {
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

export type ElicitAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/** A server's request to run a prompt through the user's model (sampling, deprecated in 2026-07-28 but still in it). */
export interface SampleRequest {
  server: string;
  messages: { role: 'user' | 'assistant'; text: string }[];
  systemPrompt?: string;
  /** The server's `maxTokens`, capped at MAX_SAMPLING_TOKENS. */
  maxTokens: number;
}

export type SampleAnswer = { model: string; text: string; stopReason?: string } | { declined: string };

/**
 * How a driver answers what servers ask during a call. `supports` says what it can answer, and
 * the client declares exactly those capabilities (a server may not ask for the rest; MCP
 * 2026-07-28 `basic/patterns/mrtr.mdx`: "servers MUST NOT send input requests for capabilities
 * the client has not declared"). The REPL asks the user; `--yes` accepts a one-question yes/no
 * form, or a form whose every field has a default; a test suite answers from its stubs.
 */
export interface McpInteraction {
  readonly supports: { form?: boolean; url?: boolean; sampling?: boolean };
  elicit?(request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer>;
  sample?(request: SampleRequest, signal: AbortSignal): Promise<SampleAnswer>;
  /** Opens a URL the user agreed to visit (URL mode); drivers without a browser leave it out. */
  open?(url: string): Promise<void>;
  /** Something to tell the user (what was declined and why). */
  note?(text: string): void;
}

/** Sampling never asks the user's model for more than this many tokens, whatever the server asks. */
export const MAX_SAMPLING_TOKENS = 4_096;
/** Longest message text shown to a driver; a server must not flood the terminal. */
const MAX_TEXT = 2_000;

/**
 * Questions one server may have open at once (a 2025 server pushes them as requests, as many as
 * it likes; a 2026-07-28 server's rounds are capped in input-rounds.ts): more are declined at
 * once, so a hostile server cannot flood the user or serve's clients with questions.
 */
export const MAX_OPEN_QUESTIONS = 16;

/**
 * The name of the form's only field when it is one yes/no question (a single boolean property):
 * the only kind of form `--yes` may answer, by accepting it with `true`. A form that asks for
 * anything else needs a person.
 */
export function singleConfirmation(schema: FormSchema): string | undefined {
  const names = Object.keys(schema.properties);
  if (names.length !== 1) return undefined;
  return schema.properties[names[0]!]?.type === 'boolean' ? names[0] : undefined;
}

/**
 * The form's values when every field has a default of its own type (an enum's default one of its
 * values): what accepting the server's defaults sends, or undefined when a field needs a person.
 * MCP 2026-07-28 `client/elicitation.mdx`: "Clients that support defaults SHOULD pre-populate form
 * fields with these values". Nothing of the user's goes back: only what the server proposed.
 */
export function formDefaults(schema: FormSchema): Record<string, string | number | boolean> | undefined {
  const names = Object.keys(schema.properties);
  if (names.length === 0) return undefined;
  const values: Record<string, string | number | boolean> = {};
  for (const name of names) {
    const field = schema.properties[name]!;
    const value = field.default;
    const fits =
      (field.type === 'string' && typeof value === 'string' && (!Array.isArray(field.enum) || field.enum.includes(value))) ||
      (field.type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
      (field.type === 'integer' && Number.isSafeInteger(value)) ||
      (field.type === 'boolean' && typeof value === 'boolean');
    if (!fits) return undefined;
    Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return values;
}

/** `name="John Doe", age=30`: a form's defaults as the user is shown them (cleaned, cut). */
export function describeDefaults(values: Record<string, unknown>): string {
  return Object.entries(values)
    .map(([name, value]) => `${plainText(name)}=${plainText(JSON.stringify(value)).slice(0, 80)}`)
    .join(', ')
    .slice(0, 600);
}

/**
 * The `--yes` policy: accepts a one-question yes/no form, and a form whose every field has a
 * default (sending the server's own defaults, said on stderr); declines every other request (and says so).
 */
export function yesInteraction(note?: (text: string) => void): McpInteraction {
  return {
    supports: { form: true },
    async elicit(request) {
      if (request.mode === 'form' && request.confirmation) return { action: 'accept', content: { [request.confirmation]: true } };
      if (request.mode === 'form' && request.defaults) {
        note?.(`MCP server "${request.server}" asked "${request.message}": accepted its defaults (--yes): ${describeDefaults(request.defaults)}`);
        return { action: 'accept', content: { ...request.defaults } };
      }
      note?.(`MCP server "${request.server}" asked "${request.message}": declined (--yes answers a yes/no question, or a form whose every field has a default; ask in \`toolman chat\`)`);
      return { action: 'decline' };
    },
    ...(note ? { note } : {}),
  };
}

/**
 * A driver's answers for the SDK's request handlers: the elicitation, sampling and roots
 * requests a server sends (pushed on a 2025 connection, inside `input_required` on a 2026 one)
 * are checked, cleaned and passed to the interaction. Roots are toolman's own (the entry's).
 */
export interface InteractionHandlers {
  capabilities: Record<string, unknown>;
  elicit?: (params: unknown, signal: AbortSignal) => Promise<Record<string, unknown>>;
  sample?: (params: unknown, signal: AbortSignal) => Promise<Record<string, unknown>>;
  roots?: () => Promise<Record<string, unknown>>;
}

export function interactionHandlers(server: string, interaction: McpInteraction | undefined, roots: readonly { uri: string; name: string }[] | undefined, route?: () => CallAsker | undefined): InteractionHandlers {
  const capabilities: Record<string, unknown> = {};
  const handlers: InteractionHandlers = { capabilities };
  const form = interaction?.supports.form === true && interaction.elicit !== undefined;
  const url = interaction?.supports.url === true && interaction.elicit !== undefined;
  if (form || url) {
    capabilities.elicitation = { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) };
    let open = 0;
    handlers.elicit = async (params, signal) => {
      const request = elicitRequest(server, params);
      if (!request || (request.mode === 'form' && !form) || (request.mode === 'url' && !url)) return { action: 'decline' };
      if (open >= MAX_OPEN_QUESTIONS) return { action: 'decline' };
      open++;
      try {
        return await answerQuestion(request, signal);
      } finally {
        open--;
      }
    };
    const answerQuestion = async (request: ElicitRequest, signal: AbortSignal): Promise<Record<string, unknown>> => {
      // The call's own asker (serve's client) when there is one: it shows the page itself.
      const asker = route?.();
      if (asker) {
        const relayed = await asker(request, signal);
        return relayed.action === 'accept' ? { action: 'accept', ...(request.mode === 'form' ? { content: relayed.content ?? {} } : {}) } : { action: relayed.action };
      }
      const answer = await interaction!.elicit!(request, signal);
      if (answer.action === 'accept' && request.mode === 'url') {
        if (interaction!.open) await interaction!.open(request.url);
        return { action: 'accept' };
      }
      return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
    };
  }
  if (interaction?.supports.sampling === true && interaction.sample) {
    capabilities.sampling = {};
    handlers.sample = async (params, signal) => {
      const request = sampleRequest(server, params);
      if (!request) throw new Error('the sampling request holds content toolman cannot send to a model (only text is supported)');
      const answer = await interaction.sample!(request, signal);
      if ('declined' in answer) throw new Error(`the user declined: ${answer.declined}`);
      return { role: 'assistant', model: answer.model, content: { type: 'text', text: answer.text }, ...(answer.stopReason ? { stopReason: answer.stopReason } : {}) };
    };
  }
  if (roots) {
    capabilities.roots = {};
    handlers.roots = async () => ({ roots: roots.map((r) => ({ uri: r.uri, name: r.name })) });
  }
  return handlers;
}

/** An `elicitation/create` request's params as a checked, cleaned request, or undefined when malformed. */
export function elicitRequest(server: string, params: unknown): ElicitRequest | undefined {
  if (!isRecord(params) || typeof params.message !== 'string') return undefined;
  const message = plainText(params.message).slice(0, MAX_TEXT);
  if (params.mode === 'url') {
    if (typeof params.url !== 'string' || !URL.canParse(params.url)) return undefined;
    const parsed = new URL(params.url);
    // Only web pages: a file:, javascript: or custom-scheme URL is never opened.
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    return { mode: 'url', server, message, url: parsed.href, host: parsed.host };
  }
  const schema = params.requestedSchema;
  if (!isRecord(schema) || !isRecord(schema.properties)) return undefined;
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isRecord(property)) return undefined;
    // Defined, not assigned: a field named `__proto__` is a field, not the object's prototype.
    Object.defineProperty(properties, plainText(name), { value: property, enumerable: true, writable: true, configurable: true });
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const form: FormSchema = { properties, required };
  const confirmation = singleConfirmation(form);
  const defaults = confirmation ? undefined : formDefaults(form);
  return { mode: 'form', server, message, schema: form, ...(confirmation ? { confirmation } : {}), ...(defaults ? { defaults } : {}) };
}

/** A `sampling/createMessage` request's params as text messages, maxTokens capped; undefined when it holds more than text. */
export function sampleRequest(server: string, params: unknown): SampleRequest | undefined {
  if (!isRecord(params) || !Array.isArray(params.messages)) return undefined;
  const messages: SampleRequest['messages'] = [];
  for (const message of params.messages) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) return undefined;
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts: string[] = [];
    for (const block of blocks) {
      if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
      texts.push(block.text);
    }
    messages.push({ role: message.role, text: texts.join('\n') });
  }
  const asked = typeof params.maxTokens === 'number' && Number.isFinite(params.maxTokens) && params.maxTokens > 0 ? Math.floor(params.maxTokens) : MAX_SAMPLING_TOKENS;
  return { server, messages, ...(typeof params.systemPrompt === 'string' ? { systemPrompt: params.systemPrompt } : {}), maxTokens: Math.min(asked, MAX_SAMPLING_TOKENS) };
}
