/**
 * Text from outside toolman (tool results, descriptions from imported files and MCP servers,
 * model output, remote agents' answers) can carry terminal control sequences: cursor moves and
 * line rewrites that hide what was printed, window-title and clipboard writes (OSC 52),
 * hyperlinks. A terminal must never receive them from data. The one definition every layer uses.
 */
// ESC followed by: a CSI sequence, an OSC/DCS/APC/PM/SOS string (ended by BEL or ESC \), or one more character.
export const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\|$)|[@-Z\\-_]|[\s\S]?)/g;
/** C0 controls but tab and newline, DEL, the C1 controls (which some terminals act on as escapes), and the bidi overrides and isolates (which reorder what is shown). */
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Characters a model reads but a terminal does not show, so text can carry instructions nobody
 * sees: zero-width characters (U+200B-200D, U+2060 word joiner, U+FEFF), the invisible operators
 * (U+2061-2064), directional marks (U+200E, U+200F, U+061C), the Mongolian vowel separator
 * (U+180E), Unicode tag characters (U+E0000-E007F, which spell ASCII invisibly) and the
 * variation selectors supplement (U+E0100-E01EF, used to smuggle bytes after a visible character).
 */
export const INVISIBLE = /[\u200b-\u200f\u2060-\u2064\ufeff\u061c\u180e]|\udb40[\udc00-\udc7f\udd00-\uddef]/g;

/** `text` with every control sequence, control character and invisible character removed (tab and newline stay). */
export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '').replace(INVISIBLE, '');
}

/** Untrusted text on one line: control sequences removed, whitespace runs (newlines too) as one space. */
export function oneLine(text: string): string {
  return plainText(text).replace(/\s+/g, ' ').trim();
}

/** Whether `text` holds a character `INVISIBLE` matches. */
export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text);
  INVISIBLE.lastIndex = 0;
  return found;
}

/** `text` with each invisible character written as a visible escape (`\u200b`, `\u{e0041}`): for showing the author what is there. */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * `text` with every control and invisible character written as a visible `\uXXXX` escape: for a
 * name that came from outside and is shown as evidence (a model's call of a tool that does not
 * exist). `plainText` would remove them, and `whoami\u001b]0;x\u0007` would then read as the real
 * `whoami`; escaped, it reads as what it is.
 */
export function visibleText(text: string): string {
  const escape = (c: string) => c.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return text.replace(CONTROL, escape).replace(INVISIBLE, escape);
}

/**
 * A JSON value from outside (an MCP server's schema and annotations, an imported schema) with
 * `plainText` applied to every string in it, keys included; parts with nothing to clean are
 * returned as they were, and `changed` says whether anything was. Below `maxDepth` levels values
 * are left as they are (such schemas are refused elsewhere).
 */
export function plainValue<T>(value: T, maxDepth = 256): { value: T; changed: boolean } {
  let changed = false;
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') {
      const clean = plainText(item);
      if (clean !== item) changed = true;
      return clean;
    }
    if (item === null || typeof item !== 'object' || depth >= maxDepth) return item;
    if (Array.isArray(item)) {
      const out = item.map((v) => walk(v, depth + 1));
      return out.some((v, i) => v !== item[i]) ? out : item;
    }
    let touched = false;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(item)) {
      const name = plainText(key);
      const next = walk(v, depth + 1);
      if (name !== key) changed = true;
      if (name !== key || next !== v) touched = true;
      // Defined, not assigned: a key "__proto__" from outside stays an ordinary key.
      Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return touched ? out : item;
  };
  return { value: walk(value, 0) as T, changed };
}

/** How much of an unfinished escape sequence a stream holds back before it gives up waiting for the rest. */
const MAX_HELD = 4096;
// A whole sequence: CSI with its final byte, a string (OSC, DCS, APC, PM, SOS) with its terminator, or a two-character escape other than those introducers.
const COMPLETE_ESCAPE = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-OQ-WYZ\\])/;

/**
 * `plainText` over text that arrives in pieces (a model's streamed answer): a sequence split
 * between two pieces (`\u001b]0;ti` then `tle\u0007`) would otherwise lose only its ESC and leave
 * the rest on screen. `push` returns what is safe to show now and holds back an escape sequence
 * that has not ended yet (at most 4 KB of it, then it is cleaned as it stands); `end` returns the rest.
 */
export function plainTextStream(): { push(piece: string): string; end(): string } {
  let held = '';
  return {
    push(piece) {
      const text = held + piece;
      const last = text.lastIndexOf('\u001b');
      if (last === -1 || COMPLETE_ESCAPE.test(text.slice(last)) || text.length - last > MAX_HELD) {
        held = '';
        return plainText(text);
      }
      held = text.slice(last);
      return plainText(text.slice(0, last));
    },
    end() {
      const rest = held;
      held = '';
      return plainText(rest);
    },
  };
}
