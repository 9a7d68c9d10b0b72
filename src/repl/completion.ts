import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EditorState } from './line-editor.js';
import { COMMANDS, type CommandSpec } from './slash-commands.js';

/** Where the names Tab completes come from (the controller reads them from the catalog and the conversation). */
export interface CompletionSources {
  /** Catalog tool names and aliases. */
  tools(): readonly string[];
  profiles(): readonly string[];
  providers(): readonly string[];
  mcpServers(): readonly string[];
  /** The MCP servers' prompts (for /prompt) and resources (for @SERVER:URI), as far as they are known. */
  prompts?(): readonly { name: string; arguments: readonly string[] }[];
  resources?(): readonly { server: string; uri: string }[];
  /** Base for relative paths. */
  cwd: string;
  home?: string;
}

/** What Tab found for the word before the cursor. */
export interface Completion {
  /** Where the word starts (code points) and what it is now. */
  start: number;
  word: string;
  /** Every choice, sorted; each is the whole word as it would be after completing. */
  candidates: string[];
  /** What the word becomes now: the one choice, or what all choices share. */
  common: string;
  /** Whether a space follows the word when there is one choice (not after a folder). */
  closes: boolean;
}

/** At most this many entries of a folder are read for a file name. */
const MAX_FOLDER_ENTRIES = 2000;

/**
 * The choices for the word before the cursor: a command after "/", then what the command takes
 * (COMMANDS' `completes`: tools, profiles, providers, MCP servers, file names). Undefined when
 * nothing applies (a message, a command that takes free text).
 */
export function completionAt(input: EditorState, sources: CompletionSources): Completion | undefined {
  const chars = Array.from(input.text);
  const before = chars.slice(0, input.cursor).join('');
  const reference = resourceChoices(before, sources);
  if (reference) return reference;
  if (!before.startsWith('/') || before.startsWith('//') || before.includes('\n')) return undefined;
  const match = /^\/(\S*)(\s+)?([\s\S]*)$/.exec(before)!;
  if (match[2] === undefined) {
    const names = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]).map((n) => `/${n}`);
    return make(0, before, names, true);
  }
  const spec = COMMANDS.find((c) => c.name === match[1]!.toLowerCase() || c.aliases?.includes(match[1]!.toLowerCase()));
  if (!spec?.completes) return undefined;
  const args = match[3]!;
  const wordStart = Array.from(before).length - Array.from(/[^\s,]*$/.exec(args)![0]).length;
  const word = Array.from(before).slice(wordStart).join('');
  const position = args.slice(0, args.length - word.length).split(/[\s,]+/).filter(Boolean).length;
  return argumentChoices(spec, position, args.split(/\s+/)[0] ?? '', wordStart, word, sources);
}

function argumentChoices(spec: CommandSpec, position: number, first: string, start: number, word: string, sources: CompletionSources): Completion | undefined {
  switch (spec.completes) {
    case 'tool':
      return position === 0 ? make(start, word, sources.tools(), true) : undefined;
    case 'tools':
      return make(start, word, sources.tools(), true);
    case 'profile':
      return position === 0 ? make(start, word, sources.profiles(), true) : undefined;
    case 'provider':
      return position === 0 ? make(start, word, sources.providers(), true) : undefined;
    case 'mcp':
      if (position === 0) return make(start, word, ['restart'], true);
      return position === 1 && first === 'restart' ? make(start, word, sources.mcpServers(), true) : undefined;
    case 'file':
      return position === 0 ? fileChoices(start, word, sources) : undefined;
    case 'prompt': {
      const prompts = sources.prompts?.() ?? [];
      if (position === 0) return make(start, word, prompts.map((p) => p.name), true);
      // After the name: its arguments, as NAME= (the value is the user's).
      const prompt = prompts.find((p) => p.name === first);
      return prompt && !word.includes('=') ? make(start, word, prompt.arguments.map((a) => `${a}=`), false) : undefined;
    }
    default:
      return undefined;
  }
}

/** `@` at the start of a word in a message: the catalog's servers (`@name:`), then that server's resource URIs. */
function resourceChoices(before: string, sources: CompletionSources): Completion | undefined {
  if (before.startsWith('/') && !before.startsWith('//')) return undefined;
  const match = /(?:^|\s)(@[^\s@]*)$/.exec(before);
  if (!match) return undefined;
  const word = match[1]!;
  const start = Array.from(before).length - Array.from(word).length;
  const colon = word.indexOf(':');
  if (colon < 0) return make(start, word, sources.mcpServers().map((name) => `@${name}:`), false);
  const server = word.slice(1, colon);
  return make(start, word, (sources.resources?.() ?? []).filter((r) => r.server === server).map((r) => `@${server}:${r.uri}`), true);
}

function make(start: number, word: string, names: readonly string[], closes: boolean): Completion | undefined {
  const candidates = [...new Set(names.filter((n) => n.startsWith(word)))].sort();
  if (candidates.length === 0) return undefined;
  return { start, word, candidates, common: commonPrefix(candidates), closes };
}

/** File and folder names that go on from `word` (a path typed so far): folders end with "/", hidden ones only after a ".". */
function fileChoices(start: number, word: string, sources: CompletionSources): Completion | undefined {
  const home = sources.home !== undefined && word.startsWith('~/');
  const slash = word.lastIndexOf('/');
  const folderPart = slash < 0 ? '' : word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  const folder = home ? join(sources.home!, folderPart.slice(2)) : resolve(sources.cwd, folderPart || '.');
  let entries: { name: string; folder: boolean }[];
  try {
    entries = readdirSync(folder, { withFileTypes: true })
      .slice(0, MAX_FOLDER_ENTRIES)
      .map((e) => ({ name: e.name, folder: e.isDirectory() }));
  } catch {
    return undefined;
  }
  const names = entries.filter((e) => e.name.startsWith(base) && (base.startsWith('.') || !e.name.startsWith('.'))).map((e) => `${folderPart}${e.name}${e.folder ? '/' : ''}`);
  const completion = make(start, word, names, true);
  // A folder is not the end of a path: no space after it.
  if (completion && completion.candidates.length === 1 && completion.candidates[0]!.endsWith('/')) completion.closes = false;
  return completion;
}

function commonPrefix(names: readonly string[]): string {
  let prefix = names[0] ?? '';
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** The input with the word at `completion.start` replaced by `word` (and a space after it when `close`). */
export function replaceWord(input: EditorState, completion: Completion, word: string, close: boolean): EditorState {
  const chars = Array.from(input.text);
  const end = completion.start + Array.from(completion.word).length;
  const after = chars.slice(end);
  const inserted = Array.from(word + (close && after[0] !== ' ' ? ' ' : ''));
  return { text: [...chars.slice(0, completion.start), ...inserted, ...after].join(''), cursor: completion.start + inserted.length };
}

/**
 * Tab pressed in the REPL: the one choice, with a space after it; or what all choices share, and
 * the choices to show; Tab again goes through them one by one (Shift+Tab back) until `reset()`
 * (any other key).
 */
export class TabCompletion {
  private cycling: { completion: Completion; base: EditorState; index: number } | undefined;

  reset(): void {
    this.cycling = undefined;
  }

  /** The input after Tab (undefined: nothing to complete), and the choices when there are several. */
  press(input: EditorState, direction: 1 | -1, sources: CompletionSources): { input: EditorState; choices?: string[] } | undefined {
    if (this.cycling) {
      const { completion, base } = this.cycling;
      const n = completion.candidates.length;
      this.cycling.index = (this.cycling.index + direction + n) % n;
      return { input: replaceWord(base, completion, completion.candidates[this.cycling.index]!, false) };
    }
    const completion = completionAt(input, sources);
    if (!completion) return undefined;
    if (completion.candidates.length === 1) return { input: replaceWord(input, completion, completion.candidates[0]!, completion.closes) };
    if (completion.common !== completion.word) {
      const next = replaceWord(input, completion, completion.common, false);
      this.cycling = { completion: { ...completion, word: completion.common }, base: next, index: -1 };
      return { input: next, choices: completion.candidates };
    }
    this.cycling = { completion, base: input, index: direction > 0 ? -1 : 0 };
    return { input, choices: completion.candidates };
  }
}
