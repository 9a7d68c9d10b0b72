import type { Reference, ToolResponse } from '../execute/types.js';

/** A source of the turn, numbered: what `[n]` in the answer points at. */
export interface TurnReference extends Reference {
  n: number;
  /** The catalog tool whose result it came from, and the call. */
  tool: string;
  call_id: string;
}

/** The most sources numbered in one turn: past it, results keep theirs unnumbered and unlisted. */
export const MAX_TURN_REFERENCES = 30;

/** What the model reads with numbered sources: the line that tells it how to cite them. */
export const SOURCES_HEADING = 'Sources (cite as [n]):';

/**
 * The sources of one turn, numbered in the order results came (the same URL keeps its number),
 * so the model can cite `[n]` and drivers can list what `[n]` means. Each result with sources
 * gets them appended, numbered, to the text the model reads: the model needs no other channel,
 * and the transcript shows what it was given.
 */
export class TurnReferences {
  readonly list: TurnReference[] = [];
  private readonly byUrl = new Map<string, number>();

  /** The response with its sources numbered and listed after its text (unchanged when it has none). */
  number(response: ToolResponse): ToolResponse {
    if (!response.ok || !response.references?.length) return response;
    const numbered: Reference[] = [];
    for (const reference of response.references) {
      let n = this.byUrl.get(reference.url);
      if (n === undefined) {
        if (this.list.length >= MAX_TURN_REFERENCES) continue;
        n = this.list.length + 1;
        this.byUrl.set(reference.url, n);
        this.list.push({ ...reference, n, tool: response.tool, call_id: response.id });
      }
      numbered.push({ ...reference, n });
    }
    if (!numbered.length) return { ...response, references: [] };
    const lines = numbered.map((r) => `[${r.n}] ${r.title ? `${r.title} — ` : ''}${r.url}`);
    return { ...response, references: numbered, content: `${response.content}\n\n${SOURCES_HEADING}\n${lines.join('\n')}` };
  }
}
