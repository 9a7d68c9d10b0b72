import { existsSync, statSync } from 'node:fs';
import { checkOutputPath, writePrivateFile } from '../shared/output-file.js';
import { dirname, resolve } from 'node:path';
import type { JsonSchema, Tool } from '../catalog/types.js';
import type { TurnSummary } from '../loop/loop-events.js';
import { profileNames, toolSummary } from '../manager/facts.js';
import type { ToolSession } from '../session/tool-session.js';
import { closest } from '../shared/did-you-mean.js';
import { isToolmanError } from '../shared/errors.js';
import type { ModelSwitch } from '../conversation/conversation.js';
import type { ProviderName } from '../providers/types.js';
import type { ReplContext } from './repl-context.js';
import { SESSION_COMMANDS } from './session-commands.js';
import { CONTENT_COMMANDS } from './content-commands.js';
import type { NoteLevel, OutputLine, ReplState } from './repl-state.js';
import { clip, count } from './terminal-text.js';

/** The slash commands: the one table `/help`, parsing and "did you mean" read. */
export interface CommandSpec {
  name: string;
  args?: string;
  summary: string;
  aliases?: string[];
  /** Changes the conversation or its tools: not while a turn runs. */
  idleOnly?: boolean;
  /** What Tab completes in its arguments (completion.ts). */
  completes?: 'tool' | 'tools' | 'profile' | 'file' | 'provider' | 'mcp' | 'prompt';
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'tools', summary: 'the tools offered now: active, deferred, found by search' },
  { name: 'profile', args: 'NAME', summary: 'switch profile (a new tool session; the conversation goes on)', idleOnly: true, completes: 'profile' },
  { name: 'force', args: 'TOOL', summary: "require TOOL in the next turn's first round", idleOnly: true, completes: 'tools' },
  { name: 'model', args: '[NAME]', summary: 'the model; with NAME, go on with that model (the conversation comes along)' },
  { name: 'provider', args: '[NAME [MODEL]]', summary: 'the providers; with NAME, go on with that provider (its default model, or MODEL)', completes: 'provider' },
  { name: 'context', summary: 'what the next request costs, by part: system, tools, deferred tools, history' },
  { name: 'mcp', args: '[restart NAME]', summary: "each MCP server's state (up, or failed and why), tools and their tokens; restart one", completes: 'mcp' },
  { name: 'prompt', args: '[NAME [ARG=VALUE...]]', summary: "an MCP server's prompt as your next message; without NAME, the prompts there are", idleOnly: true, completes: 'prompt' },
  { name: 'resources', summary: 'what MCP servers offer to attach: @SERVER:URI in a message attaches one' },
  { name: 'search', args: 'QUERY', summary: "what tool search finds among this session's tools" },
  { name: 'budget', summary: 'what the tool definitions offered now cost, against the budget' },
  { name: 'show', args: 'TOOL', summary: "a tool's description and parameters", completes: 'tool' },
  { name: 'expand', args: '[N]', summary: 'tool call N (default: the last) in full: arguments and result' },
  { name: 'history', summary: 'what you said so far' },
  { name: 'save', args: 'FILE', summary: 'write the conversation and the turn summaries as JSON', completes: 'file' },
  { name: 'reset', summary: 'forget the conversation (tools found stay found)', idleOnly: true },
  { name: 'help', summary: 'the commands and keys' },
  { name: 'exit', summary: 'leave the REPL', aliases: ['quit'] },
];

export const KEYS: readonly [string, string][] = [
  ['Enter', 'send the message or command'],
  ['Alt+Enter, \\ Enter', 'a new line without sending (Shift+Enter too where the terminal tells it apart; Ctrl-J); a paste keeps its lines'],
  ['Tab', 'complete a command, a tool, a profile, a model, a file name, a prompt or an @SERVER:URI resource; again for the next choice'],
  ['Up / Down', 'earlier messages and commands (in a text of several lines: the line above or below)'],
  ['Ctrl-O', 'show the last tool call in full (/expand N for another)'],
  ['y / n / a, Esc', 'answer an approval, one key press once its keys show: yes, no, always for this tool; Esc: no'],
  ['Ctrl-C', 'cancel the running turn; press again to exit (code 130)'],
  ['Ctrl-A/E, Ctrl-U/K/W', 'start/end of line, delete before/after the cursor, delete a word'],
];

export type ParsedInput =
  | { kind: 'empty' }
  | { kind: 'message'; text: string }
  | { kind: 'command'; name: string; args: string; spec: CommandSpec }
  | { kind: 'unknown'; name: string; suggestion?: string };

/** A line as typed: a message, a command (`/name args`), or an unknown command with the closest known one. */
export function parseInput(line: string): ParsedInput {
  const text = line.trim();
  if (!text) return { kind: 'empty' };
  // `//...` sends a message that starts with a slash.
  if (text.startsWith('//')) return { kind: 'message', text: text.slice(1) };
  if (!text.startsWith('/')) return { kind: 'message', text };
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(text)!;
  const name = match[1]!.toLowerCase();
  const spec = COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
  if (spec) return { kind: 'command', name: spec.name, args: match[2]!.trim(), spec };
  const names = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  // Short names leave edit distance little room: two swapped letters (/hepl) count as close too.
  const suggestion = closest(name, names) ?? names.find((candidate) => swapsTwoLetters(name, candidate));
  return { kind: 'unknown', name, ...(suggestion ? { suggestion: COMMANDS.find((c) => c.name === suggestion || c.aliases?.includes(suggestion))!.name } : {}) };
}

function swapsTwoLetters(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff = [...a].flatMap((ch, i) => (ch === b[i] ? [] : [i]));
  return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!];
}

export interface SwitchResult {
  /** A pending /force the new profile could not take. */
  dropped: string[];
}

/** What the commands may use of the REPL. */
export interface CommandHost {
  readonly context: ReplContext;
  /** Base for /save paths. */
  readonly cwd: string;
  readonly state: ReplState;
  /** What the user said to the model, in order (not the commands). */
  readonly history: readonly string[];
  readonly summaries: readonly TurnSummary[];
  output(lines: OutputLine[], title?: string): void;
  note(level: NoteLevel, text: string, hint?: string): void;
  /**
   * A new session, the loop continues over it: `profile` (undefined: the current one) with `force`
   * required in the next turn's first round only (undefined: a pending /force goes along if it can).
   */
  switchSession(profile: string | undefined, force?: string[]): Promise<SwitchResult>;
  expand(n?: number): void;
  /** Goes on with another provider or model; the status line follows. */
  switchModel(target: { provider?: ProviderName; model?: string }): Promise<ModelSwitch>;
  reset(): void;
  exit(code: number): void;
  /** The path a /save refused because it exists: saving to it again overwrites. */
  pendingOverwrite: string | undefined;
  /** Sends `text` as the user's next message (`/prompt`), as if typed. */
  send(text: string): Promise<void>;
}

/** Runs one command; failures are shown as errors (with the hint), never thrown. */
export async function runCommand(parsed: Extract<ParsedInput, { kind: 'command' }>, host: CommandHost): Promise<void> {
  if (parsed.spec.idleOnly && host.state.running) {
    host.note('warning', `/${parsed.name} waits until the turn ends (Ctrl-C cancels it)`);
    return;
  }
  try {
    await (COMMAND_RUNNERS[parsed.name] ?? SESSION_COMMANDS[parsed.name] ?? CONTENT_COMMANDS[parsed.name]!)(parsed.args, host);
  } catch (error) {
    host.note('error', error instanceof Error ? error.message : String(error), isToolmanError(error) ? error.hint : undefined);
  }
}

export type Runner = (args: string, host: CommandHost) => void | Promise<void>;

const COMMAND_RUNNERS: Record<string, Runner> = {
  help: (_args, host) => {
    // Two columns: a summary wraps under itself, never under the command (an 80- or 120-column terminal alike).
    const labelWidth = Math.max(...[...COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}`), ...KEYS.map(([k]) => k)].map((l) => l.length)) + 4;
    host.output(
      [
        ...COMMANDS.map((c) => ({ label: `  /${c.name}${c.args ? ` ${c.args}` : ''}`, labelWidth, text: c.summary })),
        { text: 'keys', style: 'bold' as const },
        ...KEYS.map(([k, what]) => ({ label: `  ${k}`, labelWidth, text: what })),
        { text: 'Anything else is sent to the model; start with // to send a message that begins with /.', style: 'dim' as const },
      ],
      'commands',
    );
  },

  exit: (_args, host) => host.exit(0),

  history: (_args, host) => {
    if (host.history.length === 0) return host.note('dim', 'nothing said yet');
    const width = String(host.history.length).length;
    host.output(
      host.history.map((text, i) => {
        // A message of several lines: its first line, and how many more.
        const lines = text.split('\n');
        return { text: `  ${String(i + 1).padStart(width)}  ${lines[0]}${lines.length > 1 ? ` (+${lines.length - 1} line${lines.length === 2 ? '' : 's'})` : ''}` };
      }),
      'you said',
    );
  },

  expand: (args, host) => {
    if (args && !/^#?\d+$/.test(args)) return host.note('error', `/expand takes a tool call number, like /expand 2 (not "${args}")`);
    host.expand(args ? Number(args.replace('#', '')) : undefined);
  },

  reset: (_args, host) => {
    host.reset();
    host.note('success', 'conversation cleared; tools found by search stay found');
  },

  tools: (_args, host) => {
    const session = host.context.conversation.session;
    const { active, deferred, forced, exclusive, profile } = session.selection;
    const found = new Set(session.activated);
    const meta = session.metaTools();
    const names = [...active, ...deferred, ...meta].map((t) => t.name);
    const width = Math.min(28, Math.max(...names.map((n) => n.length), 4));
    // Two columns, as /help: a long summary wraps under itself, not under the name.
    const row = (tool: Tool, tags: string[]): OutputLine => ({ label: `  ${tool.name}`, labelWidth: width + 4, text: [...tags, toolSummary(tool) ?? ''].filter(Boolean).join(' · ') });
    const tagsOf = (tool: Tool) => [
      ...(tool.effect === 'destructive' ? ['destructive'] : []),
      ...(tool.takesControl ? ['takes control'] : []),
      ...(forced.includes(tool) ? ['forced'] : []),
    ];
    const lines: OutputLine[] = [{ text: `profile ${profile.name}: ${active.length} active, ${deferred.length} deferred (${found.size} found)${exclusive ? `; ${exclusive.name} is exclusive` : ''}`, style: 'dim' }];
    lines.push({ text: `active (${active.length})`, style: 'bold' }, ...active.map((t) => row(t, tagsOf(t))));
    if (deferred.length) lines.push({ text: `deferred (${deferred.length}): offered once tool search finds them`, style: 'bold' }, ...deferred.map((t) => row(t, [...(found.has(t.name) ? ['found'] : []), ...tagsOf(t)])));
    if (meta.length) lines.push({ text: 'meta-tools', style: 'bold' }, ...meta.map((t) => row(t, [])));
    if (active.length + deferred.length === 0) lines.push({ text: '  no tools: this profile selects none', style: 'warning' });
    host.output(lines, 'tools');
  },

  show: (args, host) => {
    if (!args) return host.note('error', 'which tool? /show TOOL');
    const tool = host.context.manager.tool(args);
    const session = host.context.conversation.session;
    const decision = session.selection.decisions.find((d) => d.tool === tool);
    const where = session.activated.includes(tool.name) ? 'deferred, found by search' : decision?.state === 'active' ? 'active' : decision?.state === 'deferred' ? 'deferred' : 'not offered in this session';
    const lines: OutputLine[] = [{ text: [tool.effect, ...(tool.takesControl ? ['takes control'] : []), ...(tool.handler ? [`${tool.handler.kind} handler`] : []), where].join(' · '), style: 'dim' }];
    if (tool.aliases.length) lines.push({ text: `aliases: ${tool.aliases.join(', ')}`, style: 'dim' });
    lines.push(...(tool.description ?? tool.summary ?? '(no description)').split('\n').map((text) => ({ text })));
    const params = parameterLines(tool.parameters);
    lines.push({ text: 'parameters', style: 'bold' }, ...(params.length ? params : [{ text: '  (none)', style: 'dim' as const }]));
    host.output(lines, tool.name);
  },

  search: async (args, host) => {
    if (!args) return host.note('error', 'search for what? /search QUERY (words, as the model would search)');
    const session = host.context.conversation.session;
    const tools = [...session.selection.active, ...session.selection.deferred];
    const engine = await host.context.manager.search(tools);
    const results = engine.search(args, { limit: 10 });
    if (results.length === 0) return host.note('dim', `no tool in this session matches "${args}"`);
    const found = new Set(session.activated);
    const deferred = new Set(session.selection.deferred);
    const width = Math.min(28, Math.max(...results.map((r) => r.tool.name.length)));
    host.output(
      results.map((r) => ({
        text: `  ${r.tool.name.padEnd(width)}  ${r.score.toFixed(2).padStart(6)}  ${deferred.has(r.tool) ? (found.has(r.tool.name) ? 'found' : 'deferred') : 'active'} · matched ${r.matched.join(', ') || '-'} · ${toolSummary(r.tool) ?? ''}`,
      })),
      `search "${clip(args, 40)}": ${results.length} of ${tools.length} tools`,
    );
  },

  budget: async (_args, host) => {
    const { manager, conversation } = host.context;
    const { session, provider, model, format } = conversation;
    const { countDefinitions } = await import('../manager/token-counts.js');
    const now = await countDefinitions(session.format(provider, 1, format), model);
    const report = await manager.budget({ provider, model, profile: session.selection.profile.name, force: session.selection.forced.map((t) => t.name), format });
    const budget = report.budget.definitions;
    const lines: OutputLine[] = [
      { text: `offered now: ${count(now.total)} tokens for ${Object.keys(now.tools).length} tools (${now.estimate ? `estimate: ${now.reasons.join('; ')}` : 'exact'}; ${now.method})` },
      ...Object.entries(now.tools)
        .sort((a, b) => b[1] - a[1])
        .map(([name, tokens]) => ({ text: `  ${name.padEnd(Math.min(28, Math.max(...Object.keys(now.tools).map((n) => n.length))))}  ${count(tokens).padStart(7)}` })),
      ...(now.overhead || now.system ? [{ text: `  overhead ${count(now.overhead)}, tools' system prompts ${count(now.system)}`, style: 'dim' as const }] : []),
      { text: `profile ${report.profile}: every selected tool up front ${count(report.totals.eager)}; with deferral ${count(report.totals.deferred)} (saves ${report.totals.saving_pct}%)` },
    ];
    if (budget === null) lines.push({ text: 'no definitions budget in the catalog (budget.definitions)', style: 'dim' });
    else if (now.total <= budget) lines.push({ text: `within the definitions budget: ${count(now.total)} of ${count(budget)}`, style: 'success' });
    else lines.push({ text: `over the definitions budget by ${count(now.total - budget)} (${count(now.total)} of ${count(budget)})${report.budget.suggest_defer.length ? `; defer ${report.budget.suggest_defer.join(', ')}` : ''}`, style: 'warning' });
    host.output(lines, `budget (${provider}, ${model})`);
  },

  profile: async (args, host) => {
    const catalog = host.context.manager.catalog;
    const current = host.context.conversation.session.selection.profile.name;
    if (!args) {
      host.output(
        profileNames(catalog).map((name) => ({ text: `  ${name === current ? '*' : ' '} ${name}${catalog.profiles.get(name)?.description ? ` · ${catalog.profiles.get(name)!.description}` : ''}` })),
        'profiles (/profile NAME switches)',
      );
      return;
    }
    const { dropped } = await host.switchSession(args);
    const session = host.context.conversation.session;
    host.note('success', `profile ${session.selection.profile.name}: ${session.selection.active.length} active, ${session.selection.deferred.length} deferred tools; the conversation goes on`);
    if (dropped.length) host.note('warning', `dropped /force ${dropped.join(', ')}: profile ${session.selection.profile.name} cannot force ${dropped.length === 1 ? 'it' : 'them'}`);
  },

  force: async (args, host) => {
    if (!args) return host.note('error', 'force which tool? /force TOOL');
    const names = args.split(/[\s,]+/).filter(Boolean).map((name) => host.context.manager.tool(name).name);
    await host.switchSession(undefined, names);
    const session = host.context.conversation.session;
    const forced = session.selection.forced.map((t) => t.name);
    host.note('success', forced.length ? `${forced.join(', ')} ${forced.length === 1 ? 'is' : 'are'} required in the next turn's first round` : `${names.join(', ')} cannot be forced in profile ${session.selection.profile.name}`);
  },

  save: (args, host) => {
    if (!args) return host.note('error', 'save where? /save FILE');
    const file = resolve(host.cwd, args);
    const problem = saveProblem(file, host.cwd);
    if (problem) return host.note('error', `cannot save to ${args}: ${problem}`, file === args ? undefined : `the path: ${file}`);
    const exists = existsSync(file);
    if (exists && host.pendingOverwrite !== file) {
      host.pendingOverwrite = file;
      return host.note('warning', `${args} exists; /save ${args} again overwrites it`);
    }
    host.pendingOverwrite = undefined;
    const { manager, conversation } = host.context;
    const document = {
      toolman: 'chat',
      version: 1,
      saved: new Date().toISOString(),
      provider: conversation.provider,
      model: conversation.model,
      profile: conversation.session.selection.profile.name,
      catalog: manager.catalog.files,
      messages: conversation.messages,
      turns: host.summaries,
    };
    try {
      writePrivateFile(file, manager.secrets.redact(JSON.stringify(document, null, 2)) + '\n', { label: '/save', mode: exists ? 'replace' : 'new', scope: { cwd: host.cwd } });
    } catch (error) {
      // The writer's own words name the file already: only the reason is kept.
      const reason = isToolmanError(error) ? error.message.replace(`/save ${file}: `, '') : writeProblem(error);
      return host.note('error', `cannot save to ${args}: ${reason}`, file === args ? undefined : `the path: ${file}`);
    }
    host.note('success', `${exists ? 'overwrote' : 'saved'} ${args}: ${conversation.messages.length} messages, ${host.summaries.length} turns`);
  },
};

/**
 * Why `file` cannot be written, seen before trying (and before an overwrite is announced): a
 * folder, a folder that is missing, or what the private writer refuses (a link on the way, a
 * device or a pipe).
 */
function saveProblem(file: string, cwd: string): string | undefined {
  try {
    if (statSync(file).isDirectory()) return 'it is a folder; give a file name, like /save chat.json';
  } catch {
    // not there yet: the usual case
  }
  const folder = dirname(file);
  try {
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`;
  } catch {
    return `there is no folder ${folder}`;
  }
  try {
    checkOutputPath(file, '/save', 'replace', { cwd });
  } catch (error) {
    // The writer's own words name the file already: only the reason is kept.
    if (isToolmanError(error)) return error.message.replace(`/save ${file}: `, '');
    throw error;
  }
  return undefined;
}

/** A failed write in words (the raw code, like EACCES, at the end). */
function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    EEXIST: 'a file of that name appeared meanwhile, and is kept',
    EISDIR: 'it is a folder',
    ENOENT: 'its folder does not exist',
    ENOSPC: 'the disk is full',
  };
  const said = code && Object.hasOwn(words, code) ? words[code] : error instanceof Error ? error.message : String(error);
  return code ? `${said} (${code})` : said!;
}

/** A tool's parameters, one line each, nested properties indented (a few levels deep). */
export function parameterLines(schema: JsonSchema | undefined, indent = 2, depth = 0): OutputLine[] {
  const s = (schema ?? {}) as { properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema };
  const properties = s.properties && typeof s.properties === 'object' ? Object.entries(s.properties) : [];
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const lines: OutputLine[] = [];
  for (const [name, child] of properties) {
    const c = (child ?? {}) as { type?: unknown; description?: unknown; enum?: unknown[]; items?: JsonSchema; properties?: unknown; default?: unknown };
    const type = Array.isArray(c.type) ? c.type.join('|') : typeof c.type === 'string' ? c.type : c.enum ? 'enum' : c.properties ? 'object' : 'any';
    const parts = [
      `${' '.repeat(indent)}${name}`,
      c.type === 'array' && c.items && typeof (c.items as { type?: unknown }).type === 'string' ? `${(c.items as { type: string }).type}[]` : type,
      ...(required.has(name) ? ['required'] : []),
      ...(Array.isArray(c.enum) ? [`one of ${c.enum.map((v) => JSON.stringify(v)).join(', ')}`] : []),
      ...(c.default !== undefined ? [`default ${JSON.stringify(c.default)}`] : []),
      ...(typeof c.description === 'string' ? [`· ${c.description.replace(/\s+/g, ' ')}`] : []),
    ];
    lines.push({ text: parts.join('  ') });
    if (depth < 3) {
      if (c.properties) lines.push(...parameterLines(child, indent + 2, depth + 1));
      else if (c.items && (c.items as { properties?: unknown }).properties) lines.push(...parameterLines(c.items, indent + 2, depth + 1));
    }
  }
  return lines;
}

/** Re-exported for the controller: the session's counts for the status line. */
export function sessionCounts(session: ToolSession): { profile: string; active: number; deferred: number; found: number; forced: string[] } {
  return {
    profile: session.selection.profile.name,
    active: session.selection.active.length,
    deferred: session.selection.deferred.length,
    found: session.activated.length,
    forced: session.selection.forced.map((t) => t.name),
  };
}
