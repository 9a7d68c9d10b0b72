/** `text` in at most `width` characters: cut at a word boundary where there is one, with an ellipsis when cut. */
export function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const room = flat.slice(0, width - 1);
  const space = room.lastIndexOf(' ');
  return `${(space > width * 0.6 ? room.slice(0, space) : room).replace(/[\s,;:.]+$/, '')}…`;
}
