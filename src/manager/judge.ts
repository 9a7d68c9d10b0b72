import type { ModelConnection } from '../conversation/conversation-options.js';
import { cleanNote, judgeDescriptions, type JudgeGrade } from '../conversation/description-judge.js';
import { CHAT_PROVIDERS } from '../providers/model-clients.js';
import type { ProviderName } from '../providers/types.js';
import { ErrorCode, isToolmanError, ToolmanError } from '../shared/errors.js';
import type { ToolManager } from './tool-manager.js';

export type { JudgeGrade } from '../conversation/description-judge.js';

/** `--judge PROVIDER:MODEL` as given. */
export interface JudgeSpec {
  provider: ProviderName;
  model: string;
}

/**
 * `--judge PROVIDER:MODEL`: the provider before the first colon (a model may hold colons itself:
 * `openai:llama3:8b` on a local server). A flag is the user's, but its words reach messages:
 * plain text only.
 */
export function parseJudgeSpec(text: string): JudgeSpec {
  const colon = text.indexOf(':');
  const provider = colon < 0 ? '' : text.slice(0, colon);
  const model = colon < 0 ? '' : text.slice(colon + 1);
  if (!(CHAT_PROVIDERS as readonly string[]).includes(provider) || !model || model.length > 200 || /[\s\u0000-\u001f\u007f-\u009f]/.test(model)) {
    throw new ToolmanError(ErrorCode.USAGE, `--judge ${JSON.stringify(text.slice(0, 200))} is not PROVIDER:MODEL`, { hint: `for example --judge openai:gpt-4.1-mini; providers: ${CHAT_PROVIDERS.join(', ')} (a local OpenAI-compatible server: openai and OPENAI_BASE_URL)` });
  }
  return { provider: provider as ProviderName, model };
}

/** Errors opening the judge's conversation that are about the catalog (validate reports those), not the run. */
const CATALOG_PROBLEMS = new Set<string>([ErrorCode.UNKNOWN_PROFILE, ErrorCode.SELECTION, ErrorCode.CATALOG_INVALID, ErrorCode.UNKNOWN_TOOL, ErrorCode.MCP_SERVER]);

/** What a judged catalog gives back: a grade per tool, and what the conversation had to say. */
export interface CatalogJudgment {
  /** `provider:model` of the grader (a replay's: the recording's). */
  model: string;
  grades: Map<string, JudgeGrade>;
  notices: string[];
}

/**
 * Has a model grade the descriptions of `tools` (names of the manager's catalog) with their
 * siblings in view, through a conversation (conversation/description-judge.ts): live with the
 * provider's key, written to a recording, or answered from one. Rejects only when the
 * conversation cannot be opened (a missing key, an unknown provider); a model's failure is each
 * tool's error.
 */
export async function judgeCatalog(manager: ToolManager, tools: readonly string[], options: { spec?: JudgeSpec | undefined; connection: ModelConnection; signal?: AbortSignal }): Promise<CatalogJudgment> {
  let conversation: Awaited<ReturnType<ToolManager['conversation']>>;
  try {
    conversation = await manager.conversation({
      ...(options.spec ? { provider: options.spec.provider, model: options.spec.model } : {}),
      connection: options.connection,
      purpose: (label) => `validate --judge with ${label}`,
      missingKeyHint: (variable) => `set ${variable}, point the provider's base URL variable at a compatible server, or grade from a recording: --replay FILE`,
      stream: false,
    });
  } catch (error) {
    // The catalog's own problems (a broken default profile the conversation's session needs) are
    // validate's findings, and the judge says it could not start; anything else (a missing key,
    // a recording in the way) is the user's flags or environment, and stops the run.
    if (!isToolmanError(error) || !CATALOG_PROBLEMS.has(error.code)) throw error;
    const model = options.spec ? `${options.spec.provider}:${options.spec.model}` : options.connection.mode === 'replay' ? `${options.connection.recording.header.provider}:${options.connection.recording.header.model}` : 'judge';
    const why = `the judge could not start: ${cleanNote(manager.secrets.redact(error.message))}`;
    return { model, grades: new Map(tools.map((name) => [name, { model, error: why }])), notices: [] };
  }
  try {
    const model = `${conversation.provider}:${conversation.model}`;
    const byName = new Map(manager.catalog.tools.map((t) => [t.name, t]));
    const judged = tools.flatMap((name) => {
      const tool = byName.get(name);
      if (!tool) return [];
      // What the deterministic score reads too: the summary and the description.
      const description = [tool.summary, tool.description].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join(' ');
      return [{ name: tool.name, title: tool.title, ...(description ? { description } : {}), parameters: tool.parameters, effect: tool.effect }];
    });
    const grades = await judgeDescriptions((request, signal) => conversation.ask(request, signal), judged, { model, ...(options.signal ? { signal: options.signal } : {}) });
    return { model, grades, notices: [...conversation.notices] };
  } finally {
    conversation.close();
  }
}
