import type { CheckOutcome } from '../execute/evaluation-checks.js';
import type { GradedTurn, RubricDefinition, RubricGrader } from '../loop/turn-evaluations.js';
import { DEFAULT_MODELS } from '../providers/default-models.js';
import type { ProviderName } from '../providers/types.js';
import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import type { SideModels } from './side-models.js';

export const GRADER_PROMPT =
  'You grade an assistant\'s answer by a rubric. You are given the rubric, the user\'s message, what the tools returned to the assistant, and the answer. Judge only what the rubric asks, and only from what you are given. Reply with one line of JSON and nothing else: {"verdict": "pass"} or {"verdict": "fail", "reason": "what fails the rubric, in one sentence"}.';

/** Bounds on what the grader reads (characters): a tool result, all of them, the answer. */
const MAX_RESULT_CHARS = 8_000;
const MAX_RESULTS_CHARS = 24_000;
const MAX_ANSWER_CHARS = 16_000;
const MAX_REASON_CHARS = 300;

/**
 * Grades rubrics with a model through the conversation's side models (recorded and replayed with
 * its calls). The grading model is the rubric's own (`provider`, `model`), else the
 * conversation's. Its reply is a model's text, so untrusted: only a verdict of pass or fail is
 * believed, its reason cleaned and cut; anything else is an `error` verdict.
 */
export function rubricGrader(side: SideModels, conversationModel: () => { provider: ProviderName; model: string }): RubricGrader {
  return async (definition, turn, signal) => {
    const own = conversationModel();
    const provider = definition.provider ?? own.provider;
    const model = definition.model ?? (provider === own.provider ? own.model : DEFAULT_MODELS[provider as ProviderName] ?? own.model);
    let reply: string;
    try {
      reply = await side.complete({ provider, model }, { system: GRADER_PROMPT, text: gradingText(definition, turn), maxTokens: 200 }, signal);
    } catch (error) {
      return { verdict: 'error', reason: `${provider} ${model} could not grade it: ${error instanceof Error ? error.message : String(error)}` };
    }
    return parseVerdict(reply);
  };
}

/** The grader's message: rubric, question, results (each cut), answer. */
export function gradingText(definition: RubricDefinition, turn: GradedTurn): string {
  let room = MAX_RESULTS_CHARS;
  const results = turn.results.map((r, i) => {
    const text = cut(r.content, Math.min(MAX_RESULT_CHARS, Math.max(0, room)));
    room -= text.length;
    return `[${i + 1}] ${r.tool}:\n${text}`;
  });
  return [`Rubric:\n${definition.rubric}`, `The user's message:\n${turn.question}`, `What the tools returned:\n${results.join('\n\n') || '(nothing)'}`, `The answer:\n${cut(turn.answer, MAX_ANSWER_CHARS)}`].join('\n\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [cut]` : text;
}

/** A verdict from the grader's reply: JSON with verdict pass or fail, or a reply that starts with PASS or FAIL. */
export function parseVerdict(reply: string): CheckOutcome {
  const text = reply.trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (isRecord(value) && (value.verdict === 'pass' || value.verdict === 'fail')) {
        const reason = typeof value.reason === 'string' ? cleanReason(value.reason) : '';
        return { verdict: value.verdict, ...(reason ? { reason } : {}) };
      }
    } catch {
      // not JSON: the words are tried below
    }
  }
  const word = /^\W*(pass|fail)\b[\s:.-]*(.*)$/is.exec(text);
  if (word) {
    const reason = cleanReason(word[2] ?? '');
    return { verdict: word[1]!.toLowerCase() as 'pass' | 'fail', ...(reason ? { reason } : {}) };
  }
  return { verdict: 'error', reason: `the grader's reply was not a verdict: ${cleanReason(text) || '(empty)'}` };
}

function cleanReason(text: string): string {
  const clean = plainText(text.slice(0, MAX_REASON_CHARS * 2)).replace(/\s+/g, ' ').trim();
  return clean.length > MAX_REASON_CHARS ? `${clean.slice(0, MAX_REASON_CHARS - 1)}…` : clean;
}
