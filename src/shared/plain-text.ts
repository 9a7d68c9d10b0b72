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

/** `text` with every control sequence and control character removed (tab and newline stay). */
export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}
