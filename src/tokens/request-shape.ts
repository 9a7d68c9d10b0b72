import type { ProviderName } from '../providers/types.js';
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
