import type { EvaluationDefinition, Tool } from '../catalog/types.js';
import { linearRegExp, type LinearRegExp } from '../shared/linear-regexp.js';
import { validateValue } from './argument-validator.js';
import type { EvaluationVerdict } from './types.js';

/** The verdict of one check that needs no model (regex, not_regex, schema), with why when it did not pass. */
export type CheckOutcome = { verdict: EvaluationVerdict['verdict']; reason?: string };

const patterns = new Map<string, LinearRegExp | Error>();

function pattern(text: string): LinearRegExp | Error {
  let compiled = patterns.get(text);
  if (!compiled) {
    try {
      compiled = linearRegExp(text);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    patterns.set(text, compiled);
  }
  return compiled;
}

/**
 * Runs a check that needs no model on a value: a result (any JSON value, or text) or an answer
 * (text). Regular expressions run on RE2 (linear time, whatever the text), over the value's text
 * (JSON for a structured result); a schema checks the value itself, text being parsed as JSON
 * first. A rubric is graded by a model, never here: `error`.
 */
export function runCheck(definition: EvaluationDefinition, value: unknown): CheckOutcome {
  switch (definition.kind) {
    case 'regex':
    case 'not_regex': {
      const compiled = pattern(definition.pattern);
      if (compiled instanceof Error) return { verdict: 'error', reason: `the pattern does not compile with RE2: ${compiled.message}` };
      const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
      const matched = compiled.test(text);
      if (definition.kind === 'regex') return matched ? { verdict: 'pass' } : { verdict: 'fail', reason: `the ${definition.on} does not match /${definition.pattern}/` };
      return matched ? { verdict: 'fail', reason: `the ${definition.on} matches /${definition.pattern}/` } : { verdict: 'pass' };
    }
    case 'schema': {
      let checked = value;
      if (typeof value === 'string') {
        try {
          checked = JSON.parse(value);
        } catch {
          return { verdict: 'fail', reason: `the ${definition.on} is not JSON, so it cannot match the schema` };
        }
      }
      const result = validateValue(definition.schema, checked, definition.name);
      return result.valid ? { verdict: 'pass' } : { verdict: 'fail', reason: result.message };
    }
    case 'rubric':
      return { verdict: 'error', reason: 'a rubric is graded by a model, and none graded it' };
  }
}

/**
 * The verdicts of a tool's result checks (`evaluation:` entries with `on: result`) on one call's
 * whole result, before truncation, as `output_schema` is checked. `clean` takes secrets out of
 * the reasons (a schema's complaint quotes the value).
 */
export function resultVerdicts(tool: Tool, value: unknown, definitions: ReadonlyMap<string, EvaluationDefinition>, callId: string, clean: (text: string) => string): EvaluationVerdict[] {
  const verdicts: EvaluationVerdict[] = [];
  for (const name of new Set(tool.evaluation ?? [])) {
    const definition = definitions.get(name);
    // A name the catalog does not define is the turn's to report, once (loop/turn-evaluations.ts).
    if (!definition || definition.on !== 'result') continue;
    const outcome = runCheck(definition, value);
    verdicts.push({ name, verdict: outcome.verdict, on: 'result', tools: [tool.name], call_id: callId, ...(outcome.reason ? { reason: clean(outcome.reason) } : {}) });
  }
  return verdicts;
}
