/** Splits `include:` lines out of a catalog's text (the demo's code under test). */
export function includes(text) {
  return text
    .split('\n')
    .filter((line) => line.startsWith('include:'))
    .map((line) => line.slice('include:'.length).trim())
    // The bug the failing test finds: only the first include is kept.
    .slice(0, 1);
}

export function toolNames(text) {
  return [...text.matchAll(/^\s*- name: (\S+)$/gm)].map((m) => m[1]);
}
