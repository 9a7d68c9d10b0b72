import type { ChatMessage, ModelToolCall } from '../providers/model-client.js';
import type { ProviderName } from '../providers/types.js';

/** The provider and model a conversation talks to. */
export interface ModelTarget {
  provider: ProviderName;
  model: string;
}

export interface CarriedMessages {
  messages: ChatMessage[];
  /** What could not go along as it was, and why, in the user's words (empty when all of it did). */
  notes: string[];
}

/**
 * The conversation so far as another model (`/model`, `/provider`, a resumed transcript) can take
 * it. toolman keeps the history provider-neutral (text, calls with their JSON arguments, results),
 * so all of it goes along; what belongs to one provider or model does not:
 *
 * - `native` (a reply as the provider sent it: Anthropic content blocks, Responses output items)
 *   holds a native tool search's server-side blocks, which only that API reads back. To another
 *   provider the reply goes as its text and calls, without them.
 * - Gemini's thought signatures (a call's `extra`, sent back as `extra_content`) are bound to the
 *   model that made them, and Gemini 3 checks them only on the current turn's calls ("The API
 *   enforces strict validation on the 'Current Turn'", ai.google.dev/gemini-api/docs/thought-signatures,
 *   read 2026-11-24): between turns, earlier calls go without them, to another Gemini model too.
 *   Another provider's API does not know the field.
 * - Anthropic refuses a `tool_use` id outside `^[a-zA-Z0-9_-]+$` (a 400 "String should match
 *   pattern"; reported in maximhq/bifrost#5097 and screenpipe/screenpipe#3252, read 2026-11-24):
 *   other providers' ids are rewritten, the same way in the call and in its result, so each pair
 *   still matches.
 */
export function carryMessages(messages: readonly ChatMessage[], from: ModelTarget, to: ModelTarget): CarriedMessages {
  const sameProvider = from.provider === to.provider;
  const sameModel = sameProvider && from.model === to.model;
  if (sameModel) return { messages: [...messages], notes: [] };
  let natives = 0;
  let signatures = 0;
  const ids = to.provider === 'anthropic' ? new AnthropicIds() : undefined;
  let renamed = 0;
  const carried = messages.map((message): ChatMessage => {
    if (message.role === 'user') return message;
    if (message.role === 'tool') {
      if (!ids) return message;
      return { role: 'tool', results: message.results.map((r) => ({ ...r, id: ids.map(r.id) })) };
    }
    let native = message.native;
    if (native !== undefined && !sameProvider) {
      if (holdsMoreThanTextAndCalls(native)) natives++;
      native = undefined;
    }
    const toolCalls = message.toolCalls.map((call): ModelToolCall => {
      let next: ModelToolCall = call;
      if (call.extra !== undefined && (from.provider === 'gemini' || !sameProvider)) {
        signatures++;
        const { extra: _extra, ...rest } = next;
        next = rest;
      }
      if (ids) {
        const id = ids.map(call.id);
        if (id !== call.id) renamed++;
        next = { ...next, id };
      }
      return next;
    });
    return { role: 'assistant', text: message.text, toolCalls, ...(native !== undefined ? { native } : {}) };
  });
  const notes: string[] = [];
  if (natives) notes.push(`${natives} ${natives === 1 ? 'reply' : 'replies'} of ${from.provider} held its native tool search's own blocks, which only ${from.provider} reads: ${to.provider} gets their text and calls`);
  if (signatures) notes.push(`${signatures} tool call${signatures === 1 ? '' : 's'} lost Gemini's thought signature (it belongs to ${from.model}; Gemini checks signatures only within the current turn)`);
  if (renamed) notes.push(`${renamed} tool call id${renamed === 1 ? '' : 's'} rewritten for Anthropic, which takes letters, digits, _ and - only`);
  return { messages: carried, notes };
}

/** Anthropic block types that are a reply's text or calls: what toolman's neutral form carries anyway. */
const PLAIN_BLOCKS = new Set(['text', 'tool_use']);

function holdsMoreThanTextAndCalls(native: unknown): boolean {
  if (!Array.isArray(native)) return true;
  return native.some((block) => !(block !== null && typeof block === 'object' && PLAIN_BLOCKS.has(String((block as { type?: unknown }).type))));
}

/** Ids Anthropic takes, each other id mapped once and the same way everywhere, never two onto one. */
class AnthropicIds {
  private readonly mapped = new Map<string, string>();
  private readonly used = new Set<string>();

  map(id: string): string {
    const known = this.mapped.get(id);
    if (known !== undefined) return known;
    let next = /^[a-zA-Z0-9_-]+$/.test(id) && id.length <= 200 ? id : `toolu_${id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)}`;
    if (next === 'toolu_') next = 'toolu_call';
    const base = next;
    for (let n = 2; this.used.has(next); n++) next = `${base}_${n}`;
    this.used.add(next);
    this.mapped.set(id, next);
    return next;
  }
}
