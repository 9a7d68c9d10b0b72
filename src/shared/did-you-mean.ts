import { distance } from 'fastest-levenshtein';

/** The candidate closest to `word` by edit distance, if it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  return nearest(word, candidates, 1)[0];
}

/** Up to `limit` candidates near `word`, best first (case-insensitive, prefix matches count). */
export function nearest(word: string, candidates: readonly string[], limit = 3): string[] {
  const lower = word.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const d = distance(lower, c);
    const allowed = Math.max(1, Math.floor(Math.max(lower.length, c.length) / 3));
    const contains = lower.length >= 3 && (c.includes(lower) || lower.includes(c));
    if (d <= allowed || contains) scored.push({ candidate, score: contains ? Math.min(d, 1) : d });
  }
  scored.sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, limit).map((s) => s.candidate);
}
