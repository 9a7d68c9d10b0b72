import { createInterface } from 'node:readline/promises';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { DEFAULT_MAX_BYTES, MiB, readRegularFile } from '../../shared/read-file.js';
import type { ApprovalDecision, ApprovalRequest, CallEvent, ToolCall } from '../../execute/types.js';
import type { ProviderName } from '../../providers/types.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { cliInteraction } from '../mcp-interaction.js';
import { plainText } from '../output/terminal-text.js';
import { jsonDocument } from '../output/json-document.js';
import { ERROR_PREFIX } from '../output/error-prefix.js';
import { parseJsonText } from '../../shared/json-text.js';

export interface CallOptions {
  tool?: string;
  args?: string;
  argsFile?: string;
  batch?: string;
  yes?: boolean;
  json?: boolean;
  verbose?: boolean;
  profile?: string;
  catalog?: string[];
  provider?: ProviderName;
  strict?: boolean;
  geminiJsonSchema?: boolean;
  /** Interactive confirmation; absent when stdin is not a terminal. */
  ask?: (question: string) => Promise<string>;
  signal?: AbortSignal;
}

function readJson(text: string, what: string): unknown {
  return parseJsonText(text, what);
}

/** One JSON value per line (JSONL); a bad line is an error naming it. */
function jsonLines(text: string, file: string): unknown[] {
  return text.split('\n').flatMap((line, i) => (line.trim() === '' ? [] : [readJson(line, `${file}:${i + 1}`)]));
}

/** One call's arguments are far smaller than a catalog; 16 MiB still fits a large file's content passed inline. */
const MAX_ARGS_FILE_BYTES = 16 * MiB;

/** Reads --args-file or --batch: regular files only, within a size limit (FILE_UNREADABLE otherwise). */
function readFile(file: string, cwd: string, what: '--args-file' | '--batch'): string {
  return readRegularFile(file, { cwd, label: what, maxBytes: what === '--args-file' ? MAX_ARGS_FILE_BYTES : DEFAULT_MAX_BYTES });
}

/** The calls to run: one tool with --args / --args-file, or a --batch file of calls. */
function callsFrom(options: CallOptions, cwd: string, manager: ToolManager): ToolCall[] {
  if (options.batch) {
    if (options.tool) throw new ToolmanError(ErrorCode.USAGE, 'give either a TOOL or --batch, not both');
    const text = readFile(options.batch, cwd, '--batch');
    const list = /^\uFEFF?\s*\[/.test(text) ? readJson(text, options.batch) : jsonLines(text.replace(/^\uFEFF/, ''), options.batch);
    if (!Array.isArray(list)) throw new ToolmanError(ErrorCode.USAGE, `${options.batch} must hold a list of calls: [{"id", "name", "arguments"}], or one call per line (JSONL)`);
    return list.map((item, i) => {
      const call = item as Partial<ToolCall>;
      if (typeof call?.name !== 'string') throw new ToolmanError(ErrorCode.USAGE, `${options.batch}: call ${i} has no "name"`);
      return { id: typeof call.id === 'string' ? call.id : `c${i + 1}`, name: call.name, arguments: call.arguments ?? {} };
    });
  }
  if (!options.tool) throw new ToolmanError(ErrorCode.USAGE, 'name the tool to call, or pass --batch FILE', exampleCall(manager, options.catalog));
  if (options.args !== undefined && options.argsFile !== undefined) throw new ToolmanError(ErrorCode.USAGE, 'give --args or --args-file, not both');
  const args = options.args !== undefined ? readJson(options.args, '--args') : options.argsFile !== undefined ? readJson(readFile(options.argsFile, cwd, '--args-file'), options.argsFile) : {};
  return [{ id: 'c1', name: options.tool, arguments: args }];
}

/**
 * A call of a tool this catalog has, for the hint: the first read-only tool (else the first
 * tool), with its first example or placeholder values for its required parameters.
 */
function exampleCall(manager: ToolManager, catalogs: readonly string[] | undefined): { hint?: string } {
  const tools = manager.catalog.tools.filter((t) => t.enabled && !t.native && t.handler);
  const tool = tools.find((t) => t.effect === 'read') ?? tools[0];
  if (!tool) return {};
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const placeholder = (type: unknown) => (type === 'integer' || type === 'number' ? 1 : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : '…');
  const args = tool.examples[0] ?? Object.fromEntries(required.map((name) => [name, placeholder(properties[name]?.type)]));
  const quote = (text: string) => (/^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);
  const catalogFlags = (catalogs ?? []).map((file) => `-c ${quote(file)} `).join('');
  const more = manager.catalog.tools.length > 1 ? `; \`toolman ${catalogFlags}list\` shows all ${manager.catalog.tools.length} tools` : '';
  return { hint: `toolman ${catalogFlags}call ${tool.name}${Object.keys(args).length ? ` --args ${quote(JSON.stringify(args))}` : ''}${more}` };
}

/**
 * `toolman call TOOL` / `toolman call --batch FILE`: the calls run through the same executor as
 * the chat loop (validation, confirmation, limits, timeouts, truncation). Destructive tools ask
 * on the terminal; `--yes` approves; without a terminal and without `--yes` they are declined.
 */
export async function callCommand(options: CallOptions, io: CliIO): Promise<ExitCode> {
  const mcpInteraction = cliInteraction(io, options);
  return withManager(io, options.catalog, (manager) => callWith(manager, options, io), { requireValid: 'all', ...(mcpInteraction ? { mcpInteraction } : {}) });
}

/** The calls of `call` on a manager already open (`mcp call` opens its own, on the server it started). */
export async function callWith(manager: ToolManager, options: CallOptions, io: CliIO): Promise<ExitCode> {
  const calls = callsFrom(options, io.cwd, manager);
  const c = palette(colorEnabled(io, io.stderr));
  // Why each declined call was not run, for the person at the terminal (the model gets its own sentence).
  const declined = new Map<string, string>();
  const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    if (options.yes) return 'approve';
    if (!options.ask) {
      declined.set(request.callId, `${request.reason} and needs confirmation; pass --yes to approve when there is no terminal`);
      return 'decline';
    }
    const answer = await options.ask(`${request.reason}. Run ${request.tool.name} ${JSON.stringify(request.arguments)}? [y/N] `);
    if (/^y(es)?$/i.test(answer.trim())) return 'approve';
    declined.set(request.callId, `you declined; ${request.tool.name} was not run`);
    return 'decline';
  };
  const onEvent = (event: CallEvent) => {
    if (!options.verbose) return;
    const detail = event.type === 'tool_progress' ? ` progress ${event.message}` : event.type === 'tool_approval' ? ` approval ${event.decision}` : ` ${event.status}${'duration_ms' in event ? ` ${event.duration_ms} ms` : ''}`;
    io.stderr.write(c.dim(plainText(`[${event.id}] ${event.name}:${detail}`) + '\n'));
  };
  // Counted job ids: this process is the session's only caller.
  const session = await manager.session({ ...(options.profile ? { profile: options.profile } : {}), approve, onEvent, jobIds: 'counted' });
  // Decoded as the tools were sent: the catalog's `format:` settings, overridden by the flags.
  const format = manager.formatOptions({ ...(options.strict !== undefined ? { strict: options.strict } : {}), ...(options.geminiJsonSchema !== undefined ? { geminiJsonSchema: options.geminiJsonSchema } : {}) });
  const records = session.decode(calls, options.provider, format);
  // A tool named on the command line must exist: that is a usage error, as for `show`.
  if (options.tool) manager.tool(records[0]!.tool);
  // The user names the tools, so deferred ones count as found.
  session.activate(records.map((r) => r.tool));
  const turn = await session.runTurn(records, options.signal ? { signal: options.signal } : {});
  if (options.signal?.aborted) {
    if (options.json) io.stdout.write(jsonDocument(turn) + '\n');
    io.stderr.write(`${c.yellow('interrupted:')} the running calls were cancelled\n`);
    return EXIT.INTERRUPTED;
  }
  const failed = turn.responses.some((r) => !r.ok);

  if (options.json) {
    io.stdout.write(jsonDocument(turn) + '\n');
    return failed ? EXIT.FAILURE : EXIT.OK;
  }
  // Results and errors are data from tools and servers: cleaned of control sequences for pipes and
  // files too, since `| tee log` or a later `cat` puts them on a terminal all the same.
  for (const response of turn.responses) {
    const head = turn.responses.length > 1 ? `${c.bold(`[${plainText(response.id)}] ${plainText(response.name)}`)}${response.deduplicated ? c.dim(' (duplicate: same result)') : ''}\n` : '';
    if (response.ok) {
      io.stdout.write(head + plainText(pretty(response.content)) + '\n');
      if (response.summarized) io.stderr.write(c.dim(`(${plainText(response.name)}: result summarised from about ${response.original_tokens} tokens)\n`));
      else if (response.truncated) io.stderr.write(c.dim(`(${plainText(response.name)}: result truncated from about ${response.original_tokens} tokens${response.summary_error ? `, not summarised: ${plainText(response.summary_error)}` : ''})\n`));
      for (const r of response.references ?? []) io.stderr.write(c.dim(`source: ${r.title ? `${plainText(r.title)} — ` : ''}${plainText(r.url)}\n`));
      for (const v of response.evaluations ?? []) io.stderr.write(v.verdict === 'pass' ? c.green(`✓ evaluation ${plainText(v.name)} passed\n`) : c.red(`${v.verdict === 'fail' ? '✗' : '?'} evaluation ${plainText(v.name)} ${v.verdict === 'fail' ? 'failed' : 'could not be decided'}${v.reason ? `: ${plainText(v.reason)}` : ''}\n`));
      continue;
    }
    if (head) io.stdout.write(head);
    const why = response.error_kind === 'declined' ? declined.get(response.id) : undefined;
    if (response.error_kind === 'declined') io.stderr.write(`${c.yellow('declined:')} ${plainText(why ?? `${response.name} was not run`)}\n`);
    else io.stderr.write(`${c.red(ERROR_PREFIX)} ${plainText(response.error ?? '')}\n`);
  }
  if (turn.took_control) io.stderr.write(c.dim(`${plainText(turn.took_control)} took control: in a conversation its result goes straight to the user\n`));
  return failed ? EXIT.FAILURE : EXIT.OK;
}

function pretty(content: string): string {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}

/** A terminal prompt on stderr, for confirmations. */
export function terminalAsk(): (question: string) => Promise<string> {
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}
