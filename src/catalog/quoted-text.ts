/**
 * Text from a catalog or a server, quoted in a finding. Control, format (zero-width, bidirectional,
 * Unicode tags), private-use and unassigned characters become `\u{…}`, so a finding never carries
 * the characters it reports, and quotes and backslashes are escaped so the quote is unambiguous.
 */
export function escapeInvisible(text: string): string {
  const escaped = text.replace(/[\\"]/g, (c) => `\\${c}`);
  // Printable ASCII has none of them; the character classes below take milliseconds to compile
  // (\p{Cn} is thousands of ranges), which most runs need never pay.
  if (!/[^\x20-\x7E]/.test(escaped)) return escaped;
  return escaped.replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u2028\u2029]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** `"name"`, escaped as escapeInvisible does (JSON.stringify leaves zero-width and tag characters as they are). */
export function quoted(text: string): string {
  return `"${escapeInvisible(text)}"`;
}
