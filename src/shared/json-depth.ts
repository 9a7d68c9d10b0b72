/**
 * Whether a JSON-like value nests deeper than `max` levels, found without recursion (so the check
 * itself cannot overflow the stack on the input it guards against). Recursive code further on
 * (canonical JSON, validation, serialising, truncation) is safe once this holds.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** How deep arguments and results may nest: far beyond any real tool's, far below the stack's limit. */
export const MAX_JSON_DEPTH = 200;
