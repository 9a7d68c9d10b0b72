import { PROVIDER_LABELS, type ProviderName } from '../providers/types.js';
import { isRecord } from '../shared/is-record.js';

/**
 * Which provider's request format a body is in, from keys only one of them uses; undefined when
 * nothing gives it away (a bare `messages` list fits several). Counting a body as another
 * provider's would silently give a meaningless number.
 */
export function requestShape(body: Record<string, unknown>): { provider: ProviderName; because: string } | undefined {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  if (body.contents !== undefined || body.systemInstruction !== undefined || tools.some((t) => Array.isArray(t.functionDeclarations))) {
    return { provider: 'gemini', because: body.contents !== undefined ? '"contents"' : body.systemInstruction !== undefined ? '"systemInstruction"' : 'tools[].functionDeclarations' };
  }
  if (tools.some((t) => isRecord(t.input_schema)) || messages.some((m) => Array.isArray(m.content) && m.content.some((p) => isRecord(p) && (p.type === 'tool_use' || p.type === 'tool_result')))) {
    return { provider: 'anthropic', because: tools.some((t) => isRecord(t.input_schema)) ? 'tools[].input_schema' : 'tool_use / tool_result content blocks' };
  }
  if (body.input !== undefined || body.instructions !== undefined || tools.some((t) => t.type === 'function' && typeof t.name === 'string')) {
    return { provider: 'openai-responses', because: body.input !== undefined ? '"input"' : body.instructions !== undefined ? '"instructions"' : 'tools[] with a top-level name' };
  }
  if (Array.isArray(body.functions) || tools.some((t) => isRecord(t.function)) || messages.some((m) => m.role === 'system' || m.role === 'tool' || m.role === 'function')) {
    return { provider: 'openai', because: Array.isArray(body.functions) ? '"functions"' : tools.some((t) => isRecord(t.function)) ? 'tools[].function' : `a "${String(messages.find((m) => m.role === 'system' || m.role === 'tool' || m.role === 'function')?.role)}" message` };
  }
  return undefined;
}

/** Why a body cannot be counted for `provider`, and what to do instead. */
export interface ShapeRefusal {
  /** Completes "REQUEST.json …" / "the request …". */
  message: string;
  hint: string;
}

/**
 * Refuses a body that is not a `provider` request: one in another provider's format (Chat
 * Completions and Responses included: each reads fields the other ignores), one whose
 * conversation is in a field this provider does not read (`messages` for Responses or Gemini), or
 * one whose conversation field has the wrong form (`"messages": "hi"`). Counting any of these
 * would give a number for a request that does not exist.
 */
export function requestShapeRefusal(provider: ProviderName, body: unknown): ShapeRefusal | undefined {
  if (!isRecord(body)) return undefined;
  const shape = requestShape(body);
  if (shape && shape.provider !== provider) {
    const label = PROVIDER_LABELS[shape.provider];
    return { message: `looks like ${article(label)} ${label} request (${shape.because}), not ${PROVIDER_LABELS[provider]}`, hint: `pass --provider ${shape.provider}` };
  }
  const elsewhere = (field: string, reads: string) => ({
    message: `has "${field}", which ${PROVIDER_LABELS[provider]} requests do not use (they take ${reads}); counted as ${provider}, it would be left out`,
    hint: field === 'messages' ? 'pass --provider openai (Chat Completions) or --provider anthropic for a body with "messages"' : `write the body in ${PROVIDER_LABELS[provider]}'s format`,
  });
  const wrongForm = (field: string, wanted: string) => ({
    message: `has "${field}" as ${describeJson(body[field])}; ${PROVIDER_LABELS[provider]} takes ${wanted}`,
    hint: `write "${field}" as ${wanted}`,
  });
  switch (provider) {
    case 'openai':
    case 'anthropic':
      if (body.messages !== undefined && !Array.isArray(body.messages)) return wrongForm('messages', 'a list of messages');
      break;
    case 'openai-responses':
      if (body.messages !== undefined) return elsewhere('messages', '"input" and "instructions"');
      if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) return wrongForm('input', 'text or a list of input items');
      break;
    case 'gemini':
      if (body.messages !== undefined) return elsewhere('messages', '"contents"');
      if (body.contents !== undefined && !Array.isArray(body.contents)) return wrongForm('contents', 'a list of contents');
      break;
  }
  return undefined;
}

/** "a"/"an" before a provider's label ("an OpenAI", "a Gemini"). */
function article(label: string): string {
  return /^[AEIOU]/i.test(label) ? 'an' : 'a';
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `text (${JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value)})`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
