import stringWidth from 'string-width';

/**
 * Lines of styled spans, and the wrapping that makes them: what Markdown is laid out into
 * (markdown.ts) and the REPL draws (markdown-view.tsx). Widths are terminal columns
 * (string-width: wide characters take two).
 */

export type SpanColor = 'cyan' | 'magenta' | 'yellow' | 'green' | 'blue' | 'gray';

export interface SpanStyle {
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  dim?: boolean;
  color?: SpanColor;
}

export interface Span {
  text: string;
  style?: SpanStyle;
}

/** One line on the screen: spans whose text together is at most the width. */
export type MarkdownLine = Span[];

/** What a line's text is, without styles (for tests and widths). */
export function lineText(line: MarkdownLine): string {
  return line.map((s) => s.text).join('');
}

export function spansText(spans: readonly Span[]): string {
  return spans.map((s) => s.text).join('');
}

/**
 * Spans as lines of at most `width` columns: words kept whole where they fit, a word longer than
 * a line cut, runs of spaces and line breaks in the source as one space (Markdown's soft breaks),
 * a hard break (`br`, two spaces at a line's end) as a new line.
 */
export function wrap(spans: readonly Span[], width: number): MarkdownLine[] {
  const lines: MarkdownLine[] = [];
  let line: MarkdownLine = [];
  let used = 0;
  let pendingSpace: Span | undefined;
  const newLine = () => {
    lines.push(line);
    line = [];
    used = 0;
    pendingSpace = undefined;
  };
  const put = (text: string, style: SpanStyle | undefined) => {
    const last = line.at(-1);
    if (last && last.style === style) last.text += text;
    else line.push(style ? { text, style } : { text });
  };
  for (const span of spans) {
    if (span.text === '\n') {
      newLine();
      continue;
    }
    for (const part of span.text.split(/(\s+)/)) {
      if (part === '') continue;
      if (/^\s+$/.test(part)) {
        if (used > 0) pendingSpace = span;
        continue;
      }
      let word = part;
      const space = pendingSpace ? 1 : 0;
      const w = stringWidth(word);
      if (used > 0 && used + space + w > width) newLine();
      else if (pendingSpace) {
        put(' ', pendingSpace.style);
        used += 1;
      }
      pendingSpace = undefined;
      // A word wider than a whole line is cut.
      while (stringWidth(word) > width - used) {
        const [head, rest] = cutAt(word, width - used, used === 0);
        if (head === '') {
          newLine();
          continue;
        }
        put(head, span.style);
        newLine();
        word = rest;
      }
      if (word) {
        put(word, span.style);
        used += stringWidth(word);
      }
    }
  }
  if (line.length || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * Plain text (a message, a note, a help entry) as lines of at most `width` columns, each source
 * line wrapped on its own at spaces: its indentation and inner spacing kept, the spaces where a
 * line breaks dropped, a word longer than a line cut. Ink wraps a text that is too wide itself,
 * but keeps the space it broke at as the next line's first column (wrap-ansi with trim off), so
 * every continuation line started one column to the right.
 */
export function wrapPlain(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const source of text.split('\n')) {
    if (stringWidth(source) <= width) {
      lines.push(source);
      continue;
    }
    let line = '';
    let used = 0;
    let space = '';
    let started = false;
    const newLine = () => {
      lines.push(line);
      line = '';
      used = 0;
      space = '';
    };
    for (const part of source.split(/(\s+)/)) {
      if (part === '') continue;
      if (/^\s+$/.test(part)) {
        // The source line's own indentation stays while it leaves room for a word.
        if (!started && stringWidth(part) < width) {
          line = part;
          used = stringWidth(part);
        } else if (used > 0) space = part;
        continue;
      }
      started = true;
      let word = part;
      const gap = stringWidth(space);
      if (used > 0 && used + gap + stringWidth(word) > width) newLine();
      else {
        line += space;
        used += gap;
        space = '';
      }
      while (stringWidth(word) > width - used) {
        const [head, rest] = cutAt(word, width - used, used === 0);
        if (head === '') {
          newLine();
          continue;
        }
        line += head;
        newLine();
        word = rest;
      }
      if (word) {
        line += word;
        used += stringWidth(word);
      }
    }
    if (line || !lines.length) lines.push(line);
  }
  return lines;
}

/** Plain text as lines, each source line wrapped on its own. */
export function textLines(text: string, width: number, style?: SpanStyle): MarkdownLine[] {
  return text.split('\n').flatMap((line) => hardWrap(line, width).map((part): MarkdownLine => [style ? { text: part, style } : { text: part }]));
}

/** A line cut every `width` columns (code, where spaces matter and are kept). */
export function hardWrap(line: string, width: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (stringWidth(rest) > width) {
    const [head, tail] = cutAt(rest, width, true);
    parts.push(head);
    rest = tail;
  }
  parts.push(rest);
  return parts;
}

/**
 * The longest head of `text` at most `width` columns wide, and the rest. With `atLeastOne`, the
 * head has at least one character even when that is wider (a wide character on a line of one
 * column): a cut that takes nothing would never end.
 */
export function cutAt(text: string, width: number, atLeastOne = false): [string, string] {
  const chars = Array.from(text);
  let used = 0;
  let i = 0;
  for (; i < chars.length; i++) {
    const w = stringWidth(chars[i]!);
    if (used + w > width) break;
    used += w;
  }
  if (i === 0 && atLeastOne && chars.length > 0) i = 1;
  return [chars.slice(0, i).join(''), chars.slice(i).join('')];
}

export function clip(text: string, max: number): string {
  return stringWidth(text) <= max ? text : `${cutAt(text, Math.max(0, max - 1))[0]}…`;
}
