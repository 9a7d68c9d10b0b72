/** Lower-case words of a text, for a toy search. */
export function words(text) {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Names of the tools whose description shares a word with the query, best first. */
export function search(tools, query) {
  const wanted = new Set(words(query));
  return tools
    .map((tool) => ({ name: tool.name, score: words(tool.description).filter((w) => wanted.has(w)).length }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .map((hit) => hit.name);
}
