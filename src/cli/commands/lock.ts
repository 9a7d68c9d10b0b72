import type { Drift, ToolLock } from '../../manager/lock.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { jsonDocument } from '../output/json-document.js';
import { plainText } from '../output/terminal-text.js';
import type { GateReport } from './lock-gate.js';
import type { TestOptions } from './test-setup.js';

export interface LockOptions extends Pick<TestOptions, 'provider' | 'baseUrl' | 'record' | 'replay' | 'repeat' | 'concurrency' | 'maxCost' | 'prices' | 'signal'> {
  catalog?: string[];
  update?: boolean;
  /** Suites to re-run, old definitions against new, before the new ones are accepted. */
  gate?: string[];
  json?: boolean;
}

/** What the servers offer now against the lock on disk, worked out with the servers running. */
interface Plan {
  path: string;
  display: string;
  next: string;
  servers: number;
  tools: number;
  previous: 'none' | 'unreadable' | 'read';
  unreadable?: string;
  drift: Drift[];
  /** The drift for --json: each with its code, names and message. */
  changes: Record<string, unknown>[];
  drifted: string[];
  /** Whether the file on disk already says exactly this. */
  same: boolean;
}

/**
 * `toolman lock [--update [--gate SUITE...]]`: pins every MCP server tool of the catalog in
 * toolman.lock (a hash of each one's definition, the definition, the server's entry and reported
 * name and version). Without a lock it writes one; with one, it says whether the servers still
 * match it (exit 1 when not, the file unchanged); `--update` shows what changed, field by field,
 * and rewrites it; `--gate` first re-runs the suites that use the changed tools with the old
 * definitions and the new, and rewrites only when no suite's pass rate is worse (exit 1 otherwise).
 */
export async function lockCommand(options: LockOptions, io: CliIO): Promise<ExitCode> {
  const gate = options.gate ?? [];
  if (gate.length > 0 && !options.update) throw new ToolmanError(ErrorCode.USAGE, '--gate goes with --update', { hint: 'toolman lock --update --gate SUITE...' });
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  // The servers are asked again (as --refresh): a cached list could hide the very change to pin.
  const plan = await withManager(io, options.catalog, (manager) => planLock(manager, options.update === true), { lock: 'off', refreshMcp: true });
  const c = palette(colorEnabled(io, io.stdout));
  const say = (line: string) => {
    if (!options.json) io.stdout.write(`${line}\n`);
  };
  const summary = `${plan.tools} tool${plan.tools === 1 ? '' : 's'} of ${plan.servers} MCP server${plan.servers === 1 ? '' : 's'}`;
  const finish = (code: ExitCode, written: boolean, extra: Record<string, unknown> = {}) => {
    if (options.json) io.stdout.write(`${jsonDocument({ ok: code === EXIT.OK, file: plan.display, written, servers: plan.servers, tools: plan.tools, changes: plan.changes, ...extra })}\n`);
    return code;
  };

  if (plan.previous === 'none') {
    const { writeLockFile } = await import('../../manager/lock.js');
    writeLockFile(plan.path, plan.next, plan.display);
    say(`${c.green('wrote')} ${plainText(plan.display)}: ${summary} pinned`);
    return finish(EXIT.OK, true);
  }
  if (plan.unreadable) io.stderr.write(`${c.yellow('toolman: warning:')} the old lock cannot be read (${plainText(plan.unreadable)}); it is replaced as a whole\n`);
  if (plan.same) {
    say(`${plainText(plan.display)} is up to date: ${summary} pinned`);
    return finish(EXIT.OK, false);
  }
  if (!options.json && !plan.unreadable) await printDrift(plan, io);
  if (!options.update) {
    say(`${c.red('not written')}: the servers differ from ${plainText(plan.display)} (${plan.drift.length} change${plan.drift.length === 1 ? '' : 's'}); review them and pin the new definitions with \`toolman lock --update\``);
    return finish(EXIT.FAILURE, false);
  }
  let gateReport: GateReport | undefined;
  if (gate.length > 0) {
    const { runGate } = await import('./lock-gate.js');
    gateReport = await runGate({ ...options, gate }, io, plan.drifted, plan.display);
    if (!gateReport.accepted) {
      say(`${c.red('not written')}: ${plainText(gateReport.reason)}; ${plainText(plan.display)} is unchanged`);
      return finish(gateReport.exit, false, { gate: gateReport });
    }
  }
  const { writeLockFile } = await import('../../manager/lock.js');
  writeLockFile(plan.path, plan.next, plan.display);
  say(`${c.green('wrote')} ${plainText(plan.display)}: ${summary} pinned${gateReport ? ` (${plainText(gateReport.reason)})` : ''}`);
  return finish(EXIT.OK, true, gateReport ? { gate: gateReport } : {});
}

/** `update`: a lock that cannot be read may be replaced (said on stderr); otherwise it is the error. */
async function planLock(manager: ToolManager, update: boolean): Promise<Plan> {
  const lockModule = await import('../../manager/lock.js');
  const { parameterChanges } = await import('../../testing/parameter-changes.js');
  const servers = lockModule.currentServers(manager);
  if (servers.length === 0) throw new ToolmanError(ErrorCode.USAGE, 'the catalog has no MCP servers: there is nothing to pin', { hint: 'toolman.lock pins the tools of `mcp_servers:` entries' });
  const missing = servers.filter((s) => s.listed === undefined);
  if (missing.length > 0) {
    throw new ToolmanError(ErrorCode.MCP_SERVER, `cannot pin ${missing.map((s) => `"${s.config.name}"`).join(', ')}: ${missing.map((s) => s.unavailable ?? 'it could not be listed').join('; ')}; nothing was written`, {
      hint: 'a lock pins what every server lists now: start the server (run its command by hand to see why it fails) and run again',
    });
  }
  const next = lockModule.buildLock(servers);
  const text = lockModule.lockText(next);
  let previous: ToolLock | undefined;
  let unreadable: string | undefined;
  let where: { path: string; display: string };
  try {
    const found = lockModule.catalogLock(manager);
    where = found;
    previous = found.found?.lock;
  } catch (error) {
    if (!(error instanceof lockModule.LockFileError) || !update) throw error;
    unreadable = error.message;
    const path = lockModule.lockFilePath(manager.rootFiles[0]!);
    where = { path, display: error.file };
  }
  const drift = previous ? lockModule.currentDrift(manager, previous, parameterChanges) : [];
  const drifted = previous ? lockModule.driftedTools(drift, (server, tool) => lockModule.pinnedToolName(manager, previous!, server, tool)) : [];
  return {
    path: where.path,
    display: where.display,
    next: text,
    servers: next.servers.size,
    tools: [...next.servers.values()].reduce((n, s) => n + s.tools.size, 0),
    previous: previous ? 'read' : unreadable ? 'unreadable' : 'none',
    ...(unreadable ? { unreadable } : {}),
    drift,
    changes: drift.map((d) => ({ ...d, message: lockModule.describeDrift(d) })),
    drifted,
    same: previous !== undefined && lockModule.lockText(previous) === text,
  };
}

/** Each change on its lines: the drift, then each field change indented under it. */
async function printDrift(plan: Plan, io: CliIO): Promise<void> {
  const { driftHeadline } = await import('../../manager/lock.js');
  const c = palette(colorEnabled(io, io.stdout));
  io.stdout.write(`${plainText(plan.display)}: ${plan.drift.length} change${plan.drift.length === 1 ? '' : 's'}\n`);
  for (const d of plan.drift) {
    const mark = d.code === 'TM0851' ? c.yellow('~') : d.code === 'TM0852' || d.code === 'TM0855' ? c.green('+') : d.code === 'TM0853' || d.code === 'TM0856' ? c.red('-') : c.yellow('!');
    io.stdout.write(`  ${mark} ${plainText(driftHeadline(d))} ${c.dim(d.code)}\n`);
    if (d.code === 'TM0851') for (const f of d.changes) io.stdout.write(`      ${plainText(`${f.field}${f.path && f.path !== '(root)' ? ` ${f.path}` : ''}: ${f.change}`)}${f.breaking ? ` ${c.red('(breaking)')}` : ''}\n`);
  }
}
