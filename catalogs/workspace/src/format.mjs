/** A tool as one line: `name: summary`, the summary cut at `width`. */
export function line(tool, width = 60) {
  const text = `${tool.name}: ${tool.summary ?? ''}`;
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
