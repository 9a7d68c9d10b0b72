import { mean } from './statistics.js';

/** What a run's tool selection is judged on: the tools its case expects and the calls it made. */
export interface SelectionRun {
  case: string;
  /** null: the case names no tools (it is left out). */
  expected_tools: string[] | null;
  /** The run could not run (left out). */
  error: string | null;
  calls: readonly { name: string; meta: boolean }[];
}

/**
 * One definition of tool-selection precision and recall for every report (`toolman test`, its
 * `--compare`): per run, the share of the tools it called that its case expected (precision)
 * and of the expected tools it called (recall); meta-tools are not choices. A run that called
 * nothing has precision 1 when its case expected no tool and none otherwise; a case that expects
 * no tool has no recall. Runs that could not run, or whose case names no tools, count for neither.
 */
export function precisionOf(run: SelectionRun): number | null {
  if (run.expected_tools === null || run.error !== null) return null;
  const made = calledTools(run);
  if (made.size === 0) return run.expected_tools.length === 0 ? 1 : null;
  return [...made].filter((m) => run.expected_tools!.includes(m)).length / made.size;
}

export function recallOf(run: SelectionRun): number | null {
  if (run.expected_tools === null || run.error !== null || run.expected_tools.length === 0) return null;
  const made = calledTools(run);
  return run.expected_tools.filter((t) => made.has(t)).length / run.expected_tools.length;
}

/**
 * A provider's precision and recall over a suite: each case's mean over its runs, then the mean
 * over cases (so a case with more repeats weighs no more) — the same figure `--compare` pairs.
 */
export function selectionScores(runs: readonly SelectionRun[]): { precision: number | null; recall: number | null } {
  const byCase = new Map<string, SelectionRun[]>();
  for (const run of runs) byCase.set(run.case, [...(byCase.get(run.case) ?? []), run]);
  const score = (pick: (run: SelectionRun) => number | null): number | null => {
    const perCase = [...byCase.values()].map((group) => group.map(pick).filter((v): v is number => v !== null)).filter((values) => values.length > 0).map(mean);
    return perCase.length ? mean(perCase) : null;
  };
  return { precision: score(precisionOf), recall: score(recallOf) };
}

function calledTools(run: SelectionRun): Set<string> {
  return new Set(run.calls.filter((c) => !c.meta).map((c) => c.name));
}
