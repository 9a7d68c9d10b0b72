import type { Token, Tokens } from 'marked';
import stringWidth from 'string-width';
import { clip, hardWrap, spansText, textLines, wrap, type MarkdownLine, type Span, type SpanStyle } from './markdown-lines.js';
import { plainText } from './terminal-text.js';

export { lineText, type MarkdownLine, type Span, type SpanColor, type SpanStyle } from './markdown-lines.js';

/**
 * A model's answer, written in Markdown, laid out for the terminal as lines of styled spans:
 * headings, lists (nested, numbered, tasks), emphasis, inline code, links with their address,
 * block quotes, code blocks in a border, and tables fitted to the width (cells wrap). Without
 * colour (NO_COLOR) the same layout, with no style at all: inline marks stay as written (`**`,
 * `_`, backticks), so nothing the author marked is lost.
 *
 * Why marked and a renderer of toolman's own: parsing Markdown well (CommonMark and GFM: nested
 * lists, lazy continuation, fences, tables, escapes) is the hard part, and marked's lexer does it
 * (no dependencies, Node >= 20, loaded only when a REPL first shows an answer). Its own renderers
 * write HTML; the terminal ones on npm draw with escape codes of their own and widths they do not
 * know, and one must be sure that no text from a model reaches the terminal as a sequence. So the
 * layout is here: every piece of text goes through `plainText` (control sequences removed) before
 * it becomes a span, links are shown as text with their address (never as OSC 8 hyperlinks), HTML
 * is shown as text, and every line fits `width`.
 */

export interface MarkdownOptions {
  /** The columns the lines may take. */
  width: number;
  /** false: no styles (NO_COLOR); inline marks stay as written. */
  color: boolean;
}

/** Longer answers are drawn as plain text: laying out megabytes on every streamed delta is not worth it. */
export const MAX_MARKDOWN_CHARS = 200_000;

type Lexer = (text: string) => Token[];
let lexer: Lexer | undefined;
let loading: Promise<void> | undefined;

/** Loads marked (once). Until it has loaded, `markdownLines` answers undefined and answers are drawn as plain text. */
export function loadMarkdown(): Promise<void> {
  loading ??= import('marked').then(
    ({ Lexer }) => {
      lexer = (text) => new Lexer({ gfm: true }).lex(text);
    },
    () => undefined,
  );
  return loading;
}

/**
 * The answer laid out, or undefined while marked is not loaded (or the text is too long to lay
 * out). An answer streams in: it is laid out in sections (split where a blank line is followed
 * by a line that starts a new block, outside a code fence), each kept once laid out, so a new
 * delta costs the last section only, not the whole answer again (20 KB took ~80 ms whole).
 */
export function markdownLines(text: string, options: MarkdownOptions): MarkdownLine[] | undefined {
  const lex = lexer;
  if (!lex || text.length > MAX_MARKDOWN_CHARS) return undefined;
  const settings: MarkdownOptions = { width: Math.max(10, options.width), color: options.color };
  const lines: MarkdownLine[] = [];
  for (const section of sections(text)) {
    const key = `${settings.width}\u0000${settings.color ? 1 : 0}\u0000${section}`;
    let laid = laidOut.get(key);
    if (!laid) {
      try {
        laid = layoutBlocks(lex(section), settings);
      } catch {
        return undefined;
      }
      if (laidOut.size >= 2000) laidOut.clear();
      laidOut.set(key, laid);
    }
    if (laid.length === 0) continue;
    if (lines.length) lines.push([]);
    lines.push(...laid);
  }
  return lines;
}

/** Sections already laid out, by width, colour and text. */
const laidOut = new Map<string, MarkdownLine[]>();

/**
 * The answer cut where a block surely ends: at a blank line followed by an unindented line (an
 * indented one may continue a list item), outside a fenced code block. Each section lays out
 * alone as it would in the whole (a numbered list cut at a blank line keeps its numbers: marked
 * keeps a list's start).
 */
export function sections(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const previous = lines[i - 1];
    if (fence === undefined && current.length > 1 && previous !== undefined && previous.trim() === '' && line.trim() !== '' && !/^\s/.test(line)) {
      out.push(current.join('\n'));
      current = [];
    }
    current.push(line);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker === undefined) continue;
    if (fence === undefined) fence = marker;
    else if (marker[0] === fence[0] && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = undefined;
  }
  if (current.length) out.push(current.join('\n'));
  return out;
}

// --- blocks ---

/** Blocks one after the other, a blank line between them, as in the source. */
function layoutBlocks(tokens: readonly Token[], options: MarkdownOptions): MarkdownLine[] {
  return layoutItem(tokens, options, false, 0);
}

function layoutBlock(token: Token, options: MarkdownOptions): MarkdownLine[] {
  const { width, color } = options;
  switch (token.type) {
    case 'heading': {
      const t = token as Tokens.Heading;
      if (!color) return wrap([{ text: `${'#'.repeat(t.depth)} ` }, ...inline(t.tokens, options)], width);
      const style: SpanStyle = t.depth === 1 ? { bold: true, underline: true, color: 'cyan' } : t.depth === 2 ? { bold: true, color: 'cyan' } : { bold: true };
      return wrap(withStyle(inline(t.tokens, options), style), width);
    }
    case 'paragraph':
      return wrap(inline((token as Tokens.Paragraph).tokens, options), width);
    case 'text': {
      const t = token as Tokens.Text;
      return wrap(t.tokens ? inline(t.tokens, options) : [{ text: clean(t.text) }], width);
    }
    case 'list':
      return layoutList(token as Tokens.List, options, 0);
    case 'code':
      return layoutCode(token as Tokens.Code, options);
    case 'blockquote': {
      const inner = layoutBlocks((token as Tokens.Blockquote).tokens, { ...options, width: width - 2 });
      const bar: Span = { text: '│ ', ...(color ? { style: { color: 'gray' } } : {}) };
      return inner.map((line) => [bar, ...(color ? withStyle(line, { italic: true }) : line)]);
    }
    case 'hr':
      return [[{ text: '─'.repeat(Math.min(width, 40)), ...(color ? { style: { color: 'gray' } } : {}) }]];
    case 'table':
      return layoutTable(token as Tokens.Table, options);
    case 'html':
      // Shown as the text it is: never interpreted.
      return textLines(clean((token as Tokens.HTML).text).replace(/\n+$/, ''), width, color ? { dim: true } : undefined);
    default:
      return token.raw ? textLines(clean(token.raw).replace(/\n+$/, ''), width) : [];
  }
}

const BULLETS = ['•', '◦', '▪'];

function layoutList(list: Tokens.List, options: MarkdownOptions, depth: number): MarkdownLine[] {
  const start = typeof list.start === 'number' ? list.start : 1;
  const bullets = list.items.map((_, i) => (list.ordered ? `${start + i}.` : BULLETS[depth % BULLETS.length]!));
  // Numbers right-aligned (9. and 10. end in one column); a task's box after its bullet.
  const bulletWidth = Math.max(...bullets.map((b) => stringWidth(b)));
  const lines: MarkdownLine[] = [];
  list.items.forEach((item, i) => {
    if (i > 0 && list.loose) lines.push([]);
    const marker = `${bullets[i]!.padStart(bulletWidth)} ${item.task ? (item.checked ? '[x] ' : '[ ] ') : ''}`;
    const indent = stringWidth(marker);
    const inner = layoutItem(item.tokens, { ...options, width: options.width - indent }, !item.loose, depth + 1);
    const first: Span = { text: marker, ...(options.color ? { style: { color: 'cyan' } } : {}) };
    inner.forEach((line, j) => lines.push([j === 0 ? first : { text: ' '.repeat(indent) }, ...line]));
    if (inner.length === 0) lines.push([first]);
  });
  return lines;
}

/** A list item's blocks (or a document's), its lists at `depth`; a tight item's text and its sublist go together. */
function layoutItem(tokens: readonly Token[], options: MarkdownOptions, tight: boolean, depth: number): MarkdownLine[] {
  const lines: MarkdownLine[] = [];
  let previous: string | undefined;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'def' || token.type === 'checkbox') continue;
    const block = token.type === 'list' ? layoutList(token as Tokens.List, options, depth) : layoutBlock(token, options);
    if (block.length === 0) continue;
    if (previous !== undefined && !(tight && (token.type === 'list' || previous === 'text'))) lines.push([]);
    lines.push(...block);
    previous = token.type;
  }
  return lines;
}

/** A code block in a rounded border, its language in the top edge; long lines wrap inside it. */
function layoutCode(code: Tokens.Code, options: MarkdownOptions): MarkdownLine[] {
  const { width, color } = options;
  const border: SpanStyle | undefined = color ? { color: 'gray' } : undefined;
  const edge = (text: string): Span => ({ text, ...(border ? { style: border } : {}) });
  const lang = code.lang ? clip(oneLine(clean(code.lang)), Math.max(0, width - 8)) : '';
  const source = clean(code.text).replace(/\t/g, '  ').split('\n');
  const inner = Math.max(1, width - 4);
  const rows = source.flatMap((line) => (line === '' ? [''] : hardWrap(line, inner)));
  const contentWidth = Math.min(inner, Math.max(stringWidth(lang) + 2, ...rows.map((r) => stringWidth(r))));
  const top = lang ? `╭─ ${lang} ${'─'.repeat(Math.max(0, contentWidth - stringWidth(lang) - 1))}╮` : `╭${'─'.repeat(contentWidth + 2)}╮`;
  return [
    [edge(top)],
    ...rows.map((row): MarkdownLine => [edge('│ '), { text: row + ' '.repeat(contentWidth - stringWidth(row)), ...(color ? { style: { color: 'yellow' } } : {}) }, edge(' │')]),
    [edge(`╰${'─'.repeat(contentWidth + 2)}╯`)],
  ];
}

/**
 * A table in box lines, fitted to the width: each column gets what its widest cell needs when
 * all fit; otherwise the narrow columns keep theirs and the wide ones share the rest, and their
 * cells wrap.
 */
function layoutTable(table: Tokens.Table, options: MarkdownOptions): MarkdownLine[] {
  const { width, color } = options;
  const columns = table.header.length;
  if (columns === 0) return [];
  const cells = [table.header, ...table.rows].map((row) => Array.from({ length: columns }, (_, i) => (row[i] ? inline(row[i]!.tokens, options) : [])));
  const natural = Array.from({ length: columns }, (_, c) => Math.max(1, ...cells.map((row) => stringWidth(spansText(row[c]!)))));
  // Each column costs its content plus one space each side and one rule; the table one more rule.
  const room = width - (3 * columns + 1);
  if (room < columns) return wrap(inline(table.header.flatMap((h) => h.tokens), options), width);
  const widths = fitColumns(natural, room);
  const rule = (left: string, mid: string, right: string): MarkdownLine => [{ text: left + widths.map((w) => '─'.repeat(w + 2)).join(mid) + right, ...(color ? { style: { color: 'gray' } } : {}) }];
  const bar: Span = { text: '│', ...(color ? { style: { color: 'gray' } } : {}) };
  const lines: MarkdownLine[] = [rule('┌', '┬', '┐')];
  cells.forEach((row, r) => {
    const wrapped = row.map((spans, c) => wrap(r === 0 && color ? withStyle(spans, { bold: true }) : spans, widths[c]!));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    for (let i = 0; i < height; i++) {
      const line: MarkdownLine = [bar];
      wrapped.forEach((cell, c) => {
        const content = cell[i] ?? [];
        const pad = widths[c]! - stringWidth(spansText(content));
        const align = table.align[c];
        const left = align === 'right' ? pad : align === 'center' ? Math.floor(pad / 2) : 0;
        line.push({ text: ` ${' '.repeat(left)}` }, ...content, { text: `${' '.repeat(pad - left)} ` }, bar);
      });
      lines.push(line);
    }
    if (r === 0) lines.push(rule('├', '┼', '┤'));
  });
  lines.push(rule('└', '┴', '┘'));
  return lines;
}

/** Column widths within `room`: all as wide as they need when that fits, else the widest cut down evenly. */
export function fitColumns(natural: readonly number[], room: number): number[] {
  const widths = [...natural];
  if (widths.reduce((a, b) => a + b, 0) <= room) return widths;
  // Water-filling: columns narrower than a fair share keep their width; the others share what is left.
  const open = new Set(widths.map((_, i) => i));
  let left = room;
  for (;;) {
    const share = Math.floor(left / open.size);
    const narrow = [...open].filter((i) => natural[i]! <= share);
    if (narrow.length === 0) {
      let extra = left - share * open.size;
      for (const i of open) widths[i] = Math.max(1, share + (extra-- > 0 ? 1 : 0));
      return widths;
    }
    for (const i of narrow) {
      open.delete(i);
      left -= natural[i]!;
    }
    if (open.size === 0) return widths;
  }
}

// --- inline ---

/** Inline tokens as styled spans; without colour, each mark as written. */
function inline(tokens: readonly Token[] | undefined, options: MarkdownOptions, style: SpanStyle = {}): Span[] {
  const spans: Span[] = [];
  const add = (text: string, extra: SpanStyle = {}) => {
    const merged = { ...style, ...extra };
    const cleaned = clean(text);
    if (cleaned) spans.push(Object.keys(merged).length ? { text: cleaned, style: merged } : { text: cleaned });
  };
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const t = token as Tokens.Text;
        if (t.tokens?.length) spans.push(...inline(t.tokens, options, style));
        else add(decodeEntities(t.text));
        break;
      }
      case 'strong':
        if (!options.color) add(token.raw);
        else spans.push(...inline((token as Tokens.Strong).tokens, options, { ...style, bold: true }));
        break;
      case 'em':
        if (!options.color) add(token.raw);
        else spans.push(...inline((token as Tokens.Em).tokens, options, { ...style, italic: true }));
        break;
      case 'del':
        if (!options.color) add(token.raw);
        else spans.push(...inline((token as Tokens.Del).tokens, options, { ...style, strikethrough: true }));
        break;
      case 'codespan':
        if (!options.color) add(token.raw);
        else add(decodeEntities((token as Tokens.Codespan).text), { color: 'yellow' });
        break;
      case 'br':
        spans.push({ text: '\n' });
        break;
      case 'link': {
        const link = token as Tokens.Link;
        const before = spans.length;
        spans.push(...inline(link.tokens, options, options.color ? { ...style, underline: true, color: 'blue' } : style));
        const shown = spansText(spans.slice(before));
        // The address is shown as text (no OSC 8 hyperlink: a model's text never becomes an escape sequence).
        if (link.href && link.href !== shown && `mailto:${shown}` !== link.href) add(` (${link.href})`, options.color ? { dim: true } : {});
        break;
      }
      case 'image': {
        const image = token as Tokens.Image;
        add(`[image: ${image.text || 'no description'}]${image.href ? ` (${image.href})` : ''}`, options.color ? { dim: true } : {});
        break;
      }
      case 'html':
        add(token.raw, options.color ? { dim: true } : {});
        break;
      default:
        add(token.raw);
    }
  }
  return spans;
}

function withStyle(spans: readonly Span[], style: SpanStyle): Span[] {
  return spans.map((s) => ({ ...s, style: { ...style, ...s.style } }));
}


// --- text from outside toolman ---

/** Untrusted text ready to lay out: no control sequences, tabs as two spaces. */
function clean(text: string): string {
  return plainText(text).replace(/\t/g, '  ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The character references a model writes (`&amp;`, `&#39;`), as the characters; what they name is cleaned after. */
function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}
