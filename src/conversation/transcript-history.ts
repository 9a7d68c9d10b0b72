import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ChatMessage, ModelToolCall, ModelToolResult } from '../providers/model-client.js';
import { CHAT_PROVIDERS } from '../providers/model-clients.js';
import type { ProviderName } from '../providers/types.js';
import { defaultTranscriptPath } from '../loop/transcript.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { plainText } from '../shared/plain-text.js';
import { readRegularFile } from '../shared/read-file.js';

/**
 * A conversation rebuilt from its transcript (`toolman chat --continue`, `--resume FILE`): what
 * was said, the model's replies, its tool calls and their results, in the loop's
 * provider-neutral form, so the next turn goes on from there. A transcript is untrusted input
 * (a file anyone could have written or edited): it is read within bounds, every line checked, and
 * only data comes out of it: messages, and the provider, model and profile it names, each
 * checked. It never chooses a catalog (the command line or ./toolman.yaml does), never runs a
 * tool (results are the recorded ones), and carries no provider's native blocks.
 */
export interface TranscriptHistory {
  file: string;
  messages: ChatMessage[];
  /** The provider and model the conversation last talked to, when the transcript names ones toolman knows. */
  provider?: ProviderName;
  model?: string;
  profile?: string;
  /** The folder the session ran in. */
  cwd?: string;
  /** User turns in `messages`. */
  turns: number;
  /** What was left out, and why. */
  notices: string[];
}

/** At most this many messages are rebuilt: a transcript that holds more was not written by a chat. */
export const MAX_HISTORY_MESSAGES = 20_000;
/** Names and ids longer than this are not toolman's. */
const MAX_NAME = 256;

/** Reads and rebuilds a transcript file (`--resume FILE`); a file toolman cannot read or use is a located error. */
export function readTranscriptFile(path: string, cwd: string): TranscriptHistory {
  const text = readRegularFile(path, { cwd, label: 'transcript' });
  return readTranscriptHistory(text, resolve(cwd, path));
}

/**
 * The conversation in a transcript's text. The last session in the file counts (a `--transcript`
 * file used twice holds two); a `reset` forgets what came before it; a line cut short at the end
 * (the process died while writing it) is left out with a notice; any other damaged line is an
 * error naming its line.
 */
export function readTranscriptHistory(text: string, file: string): TranscriptHistory {
  const notices: string[] = [];
  const history: TranscriptHistory = { file, messages: [], turns: 0, notices };
  const lines = text.split('\n');
  let round: Round | undefined;
  const flush = () => {
    if (round) pushRound(history.messages, round);
    round = undefined;
  };
  const roundOf = (n: unknown): Round => {
    const number = typeof n === 'number' ? n : 0;
    if (round && round.n !== number) flush();
    round ??= { n: number, text: '', calls: [], results: new Map() };
    return round;
  };
  let headers = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const where = `${file}:${i + 1}`;
    let entry: Record<string, unknown>;
    try {
      const value: unknown = JSON.parse(raw);
      if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { type?: unknown }).type !== 'string') throw new Error('not an object with a type');
      entry = value as Record<string, unknown>;
    } catch (error) {
      if (i === lines.length - 1) {
        notices.push(`${where}: the last line was cut short (the session ended while it was written); left out`);
        break;
      }
      throw damaged(where, error instanceof Error && error.message === 'not an object with a type' ? 'a line that is not an object with a "type"' : 'a line that is not JSON');
    }
    const fail = (problem: string) => damaged(where, problem);
    switch (entry.type) {
      case 'session':
        if ('version' in entry) {
          // A header: a new session in this file starts here; the last one counts.
          if (entry.version !== 1) throw fail(`a transcript of version ${JSON.stringify(entry.version)}; this toolman reads version 1`);
          headers++;
          flush();
          history.messages.length = 0;
          history.turns = 0;
          delete history.provider;
          delete history.model;
          delete history.profile;
          delete history.cwd;
          target(history, entry, notices, where);
          const profile = name(entry.profile);
          if (profile) history.profile = profile;
          if (typeof entry.cwd === 'string' && entry.cwd.length < 4096) history.cwd = entry.cwd;
        } else {
          const profile = name(entry.profile);
          if (profile) history.profile = profile;
        }
        break;
      case 'model':
        target(history, entry, notices, where);
        break;
      case 'history': {
        flush();
        if (!Array.isArray(entry.messages)) throw fail('a history line without a list of messages');
        history.messages = entry.messages.map((m, j) => chatMessage(m, (problem) => fail(`message ${j + 1}: ${problem}`)));
        history.turns = history.messages.filter((m) => m.role === 'user').length;
        break;
      }
      case 'reset':
        flush();
        history.messages.length = 0;
        history.turns = 0;
        break;
      case 'turn_start': {
        flush();
        if (typeof entry.text !== 'string') throw fail('a turn without its text');
        history.messages.push({ role: 'user', text: entry.text });
        history.turns++;
        break;
      }
      case 'assistant_text':
        if (typeof entry.text !== 'string') throw fail('a reply without its text');
        roundOf(entry.round).text += entry.text;
        break;
      case 'tool_calls': {
        if (!Array.isArray(entry.calls)) throw fail('tool calls without a list');
        // A line of a few hundred thousand calls overflowed the stack (spread into push()): no chat makes that many.
        if (entry.calls.length > MAX_HISTORY_MESSAGES) throw fail(`more than ${MAX_HISTORY_MESSAGES} calls in one round: not a chat's transcript`);
        const calls = roundOf(entry.round).calls;
        entry.calls.forEach((c, j) => calls.push(toolCall(c, (problem) => fail(`call ${j + 1}: ${problem}`))));
        break;
      }
      case 'tool_result': {
        const result = toolResult(entry.response, fail);
        roundOf(entry.round).results.set(result.id, result);
        break;
      }
      case 'round_end':
      case 'done':
        flush();
        break;
      default:
        // Everything else (requests, statuses, usage, notes of the REPL, sub-agents' sections) is not the conversation.
        break;
    }
    if (history.messages.length > MAX_HISTORY_MESSAGES) throw fail(`more than ${MAX_HISTORY_MESSAGES} messages: not a chat's transcript`);
  }
  flush();
  if (headers === 0) throw new ToolmanError(ErrorCode.USAGE, `${file} is not a toolman transcript (its first line must be {"type": "session", "version": 1, ...})`, { hint: 'toolman chat writes one per session; the path is printed when it ends' });
  return history;
}

/**
 * The newest transcript of a chat run in `cwd` that has something said in it (`--continue`),
 * from the folder transcripts go to by default; undefined when there is none. Only each file's
 * first line is read until one names `cwd`, and a bounded number of files are looked at.
 */
export function lastTranscript(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const sample = defaultTranscriptPath(env);
  if (!sample) return undefined;
  const folder = dirname(sample);
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return undefined;
  }
  // Named by the time they started: the newest sort last.
  names.sort().reverse();
  let parsed = 0;
  for (const fileName of names.slice(0, 500)) {
    const file = join(folder, fileName);
    const first = firstLine(file);
    if (!first) continue;
    try {
      const header = JSON.parse(first) as { type?: unknown; cwd?: unknown };
      if (header.type !== 'session' || header.cwd !== cwd) continue;
    } catch {
      continue;
    }
    if (++parsed > 20) break;
    try {
      if (readTranscriptFile(file, cwd).turns > 0) return file;
    } catch {
      // a damaged transcript is not the one to continue
    }
  }
  return undefined;
}

/** A file's first line, read in a bounded piece; undefined when it cannot be read. */
function firstLine(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, n).toString('utf8');
    const end = text.indexOf('\n');
    return end < 0 ? undefined : text.slice(0, end);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Round {
  n: number;
  text: string;
  calls: ModelToolCall[];
  results: Map<string, ModelToolResult>;
}

/** A round as the loop kept it: the reply (text and calls), then every call's result, in call order. */
function pushRound(messages: ChatMessage[], round: Round): void {
  if (!round.text && round.calls.length === 0) return;
  messages.push({ role: 'assistant', text: round.text, toolCalls: round.calls });
  if (round.calls.length === 0) return;
  // A call without a result (the session ended while it ran) still needs one: the APIs refuse a call left unanswered.
  messages.push({ role: 'tool', results: round.calls.map((c) => round.results.get(c.id) ?? { id: c.id, name: c.name, content: 'no result: the session ended before this call answered', isError: true }) });
}

function damaged(where: string, problem: string): ToolmanError {
  return new ToolmanError(ErrorCode.USAGE, `${where}: cannot resume from this transcript: ${problem}`, { hint: 'transcripts are written by toolman chat; this line was changed or cut' });
}

/** A provider and model the transcript names, kept only when toolman knows the provider. */
function target(history: TranscriptHistory, entry: Record<string, unknown>, notices: string[], where: string): void {
  if (typeof entry.provider === 'string') {
    if ((CHAT_PROVIDERS as readonly string[]).includes(entry.provider)) history.provider = entry.provider as ProviderName;
    else notices.push(`${where}: provider ${JSON.stringify(plainText(entry.provider).slice(0, 40))} is not one toolman talks to; ignored`);
  }
  const model = name(entry.model);
  if (model) history.model = model;
}

/** A name from the file (a model, a profile): a short line of plain text, or nothing. */
function name(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = plainText(value).trim();
  return text && text.length <= MAX_NAME && !/\s{2,}|\n/.test(text) ? text : undefined;
}

function toolCall(value: unknown, fail: (problem: string) => Error): ModelToolCall {
  if (value === null || typeof value !== 'object') throw fail('not an object');
  const call = value as Record<string, unknown>;
  if (typeof call.id !== 'string' || call.id.length > MAX_NAME) throw fail('no id');
  if (typeof call.name !== 'string' || call.name.length > MAX_NAME) throw fail('no name');
  // The record's arguments are parsed; the model's own form is their JSON (text that was not JSON stays text).
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { id: call.id, name: call.name, arguments: args };
}

function toolResult(value: unknown, fail: (problem: string) => Error): ModelToolResult {
  if (value === null || typeof value !== 'object') throw fail('a result without its response');
  const r = value as Record<string, unknown>;
  if (typeof r.id !== 'string' || r.id.length > MAX_NAME) throw fail('a result without its call id');
  if (typeof r.name !== 'string' || r.name.length > MAX_NAME) throw fail('a result without its tool name');
  if (typeof r.ok !== 'boolean' || typeof r.content !== 'string') throw fail('a result without ok and content');
  const error = typeof r.error === 'string' ? r.error : null;
  return { id: r.id, name: r.name, content: r.ok ? r.content : (error ?? r.content), isError: !r.ok };
}

/** A message of a `history` line (a resumed session's start): the neutral form only, nothing a provider sent natively. */
function chatMessage(value: unknown, fail: (problem: string) => Error): ChatMessage {
  if (value === null || typeof value !== 'object') throw fail('not an object');
  const m = value as Record<string, unknown>;
  switch (m.role) {
    case 'user':
      if (typeof m.text !== 'string') throw fail('a user message without text');
      return { role: 'user', text: m.text };
    case 'assistant': {
      if (typeof m.text !== 'string' || !Array.isArray(m.toolCalls)) throw fail('a reply without text and calls');
      return { role: 'assistant', text: m.text, toolCalls: m.toolCalls.map((c) => toolCall(c, fail)) };
    }
    case 'tool': {
      if (!Array.isArray(m.results)) throw fail('tool results without a list');
      return {
        role: 'tool',
        results: m.results.map((r) => {
          if (r === null || typeof r !== 'object') throw fail('a result that is not an object');
          const result = r as Record<string, unknown>;
          if (typeof result.id !== 'string' || typeof result.name !== 'string' || typeof result.content !== 'string') throw fail('a result without id, name and content');
          return { id: result.id, name: result.name, content: result.content, isError: result.isError === true };
        }),
      };
    }
    default:
      throw fail(`a message of role ${JSON.stringify(String(m.role)).slice(0, 40)}`);
  }
}
