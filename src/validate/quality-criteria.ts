/**
 * Description quality: what a model needs from a tool's definition to choose it and call it
 * right, as registries and research rubrics grade it (Glama's tool description quality score
 * asks for the same things): what the tool does, when to use it (and when not), what it returns,
 * its side effects when it changes things, and what each parameter means and in which format.
 * Each criterion is a deterministic check with a code (TM1101-TM1105) and a share of a 0-100
 * score per tool; the catalog's score is their mean.
 */
export type Criterion = 'purpose' | 'usage' | 'returns' | 'effects' | 'parameters' | 'formats' | 'own_words';

export interface ToolQuality {
  tool: string;
  /** 0-100: the criteria met, weighted (CRITERIA). */
  score: number;
  /** Each criterion: met, not met, or null when it does not apply (a read-only tool has no side effects to state). */
  checks: Record<Criterion, boolean | null>;
  /** Who graded the score: the deterministic rules (a model's grade, with `--judge`, is `judge`, beside it). */
  graded_by: 'rules';
  /**
   * A model's grade with the sibling tools in view (`validate --judge`; the shape
   * conversation/description-judge.ts gives), or why it has none.
   */
  judge?: { model: string; score: number; notes: string; confusable_with: string[] } | { model: string; error: string };
}

export interface CatalogQuality {
  /** Mean of the tools' scores, rounded; null for a catalog without tools. */
  score: number | null;
  tools: ToolQuality[];
  /** With `--judge`: the grader, the mean of its grades (null when it graded none), and how many tools it graded and could not. */
  judge?: { model: string; score: number | null; graded: number; not_graded: number };
}

/** Each criterion's share of the score; a criterion that does not apply counts as met. */
export const CRITERIA: Record<Criterion, number> = { purpose: 30, usage: 15, returns: 15, effects: 15, parameters: 10, formats: 10, own_words: 5 };
