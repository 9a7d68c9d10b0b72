import type { EvaluationDefinition, Tool } from '../catalog/types.js';
import { runCheck, type CheckOutcome } from '../execute/evaluation-checks.js';
import type { EvaluationVerdict, ToolResponse } from '../execute/types.js';

export type RubricDefinition = Extract<EvaluationDefinition, { kind: 'rubric' }>;

/** What a rubric's grader is shown: the user's message, what the tools returned (as the model got it), the answer. */
export interface GradedTurn {
  question: string;
  answer: string;
  results: { tool: string; content: string }[];
}

/**
 * Grades an answer by a rubric with a model: the conversation supplies it (its side models:
 * recorded and replayed with its own calls). Never throws: a grader that cannot decide says `error`.
 */
export type RubricGrader = (definition: RubricDefinition, turn: GradedTurn, signal: AbortSignal) => Promise<CheckOutcome>;

export interface EvaluatedTurn {
  question: string;
  answer: string;
  /** The turn's responses that ran (ok), in call order, as the model got them. */
  responses: readonly ToolResponse[];
  /** A catalog tool by name (the session's view). */
  resolve(name: string): Tool | undefined;
  evaluations: ReadonlyMap<string, EvaluationDefinition>;
}

/**
 * The verdicts of a turn: every check a tool used in the turn lists (`evaluation:`). Result
 * checks ran on each result as it came (the executor: on the whole result); they are gathered
 * here in call order. Answer checks run once each, however many tools list them: regular
 * expressions and schemas here, rubrics by `grade` (none: `error`). A name the catalog does not
 * define is an `error` verdict (validate reports it: TM1401).
 */
export async function evaluateTurn(turn: EvaluatedTurn, grade: RubricGrader | undefined, signal: AbortSignal): Promise<EvaluationVerdict[]> {
  const verdicts: EvaluationVerdict[] = [];
  const listedBy = new Map<string, Set<string>>();
  for (const response of turn.responses) {
    verdicts.push(...(response.evaluations ?? []));
    for (const name of turn.resolve(response.tool)?.evaluation ?? []) {
      let tools = listedBy.get(name);
      if (!tools) listedBy.set(name, (tools = new Set()));
      tools.add(response.tool);
    }
  }
  const graded: GradedTurn = { question: turn.question, answer: turn.answer, results: turn.responses.map((r) => ({ tool: r.tool, content: r.content })) };
  const answerChecks = [...listedBy].flatMap(([name, tools]) => {
    const definition = turn.evaluations.get(name);
    if (definition?.on === 'result') return [];
    return [{ name, tools: [...tools], definition }];
  });
  // Rubrics are model calls: they go at once, and the verdicts keep the order the checks were listed in.
  const outcomes = await Promise.all(
    answerChecks.map(async ({ name, definition }): Promise<CheckOutcome> => {
      if (!definition) return { verdict: 'error', reason: `the catalog defines no evaluation named ${name}` };
      if (definition.kind !== 'rubric') return runCheck(definition, turn.answer);
      if (!grade) return { verdict: 'error', reason: 'no model to grade the rubric with' };
      try {
        return await grade(definition, graded, signal);
      } catch (error) {
        return { verdict: 'error', reason: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  answerChecks.forEach(({ name, tools }, i) => {
    const outcome = outcomes[i]!;
    verdicts.push({ name, verdict: outcome.verdict, on: 'answer', tools, ...(outcome.reason ? { reason: outcome.reason } : {}) });
  });
  return verdicts;
}
