import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExecHandler } from '../../catalog/types.js';
import { fillCatalogText, hasTemplate, templateParameters } from '../templates.js';
import { ToolFailure, type RunContext, type ToolRunner } from '../runner.js';
import { killMarkedProcesses, killProcessTree, runMarker } from './process-tree.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20;
/** Passed through always, so programs can be found and behave; everything else only by `env`. */
const BASE_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT'];
/** How long to wait for output pipes to close once the program is gone (a detached grandchild may hold them). */
const CLOSE_GRACE_MS = 200;

/**
 * Runs a program from its argv list, never through a shell: each `{{param}}` is replaced inside one
 * argument, so a value like `; rm -rf ~` stays one literal argument. The program never comes from
 * an argument, and a value cannot turn into an option (see `buildArgv`). The process leads its own
 * group; on timeout or cancel the whole tree is killed, and when the program exits whatever it left
 * running in its group is stopped too. stdout and stderr are capped in bytes.
 */
export function createExecRunner(): ToolRunner<'exec'> {
  // Put in every program's environment, so what they start can be found when toolman closes.
  const marker = runMarker().join('=');
  let started = false;
  // A process that ends without closing its runners (a closed pipe ends toolman at once) still
  // takes its programs with it: the scan is synchronous, as an exit handler must be.
  const onExit = () => killMarkedProcesses(marker);
  return {
    kind: 'exec',
    run: (handler, args, context) => {
      if (!started) process.once('exit', onExit);
      started = true;
      return runProgram(handler.exec, args, context, marker);
    },
    async close() {
      if (!started) return;
      process.off('exit', onExit);
      killMarkedProcesses(marker);
    },
  };
}

function runProgram(spec: ExecHandler, args: Record<string, unknown>, context: RunContext, marker: string): Promise<unknown> {
  let argv: string[];
  try {
    argv = buildArgv(spec, args, context);
  } catch (error) {
    return Promise.reject(error);
  }
  const [program, ...rest] = argv as [string, ...string[]];
  const cwd = resolve(context.baseDir, spec.cwd ?? '.');
  if (!isDirectory(cwd)) return Promise.reject(new ToolFailure(`${context.tool.name} cannot run: its working directory ${spec.cwd ?? cwd} does not exist`));
  const env: Record<string, string> = {};
  for (const name of [...BASE_ENV, ...(spec.env ?? [])]) if (context.env[name] !== undefined) env[name] = context.env[name]!;
  const [markName, markValue] = marker.split('=') as [string, string];
  env[markName] = markValue;
  const limit = spec.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Read past the limit by the longest secret, so one cut at the limit is still recognised and redacted.
  const stdout = new CappedOutput(limit, limit + context.secrets.maxLength);
  const stderr = new CappedOutput(limit, limit + context.secrets.maxLength);

  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, rest, { cwd, env, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      context.signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    };
    /** Waits briefly for the pipes to close, then stops reading: nothing left behind may hold the call open. */
    const afterExit = (finish: () => void) => {
      grace = setTimeout(() => settle(finish), CLOSE_GRACE_MS);
      child.once('close', () => settle(finish));
    };
    const onAbort = () => {
      if (child.pid) killProcessTree(child.pid);
      afterExit(() => reject(context.signal.reason));
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => settle(() => reject(new ToolFailure(error.code === 'ENOENT' ? `${context.tool.name} cannot run: program not found: ${program}` : `${context.tool.name} cannot run ${program}: ${error.message}`))));
    child.on('exit', (code, signal) => {
      if (context.signal.aborted) return;
      // The program is done: background processes it left in its group are stopped with it.
      if (child.pid) killGroup(child.pid);
      afterExit(() => {
        const out = stdout.text(context);
        const err = stderr.text(context);
        const cut = stdout.cut || stderr.cut;
        const result = { exit_code: code, ...(signal ? { signal } : {}), stdout: out, stderr: err, ...(cut ? { output_cut_at_bytes: limit } : {}) };
        if (code === 0 && spec.output === 'json') {
          try {
            resolvePromise(jsonOutput(out, stdout.cut, limit, context.tool.name, program));
          } catch (error) {
            reject(error);
          }
        } else if (code === 0) resolvePromise(result);
        else reject(Object.assign(new Error(`${program} exited with ${code ?? signal}${err ? `: ${err.trim().slice(0, 500)}` : ''}`), { result }));
      });
    });
  });
}

/**
 * The argv for one call. The catalog author decides what runs; the model only fills values:
 * - the program (argv[0]) never comes from an argument (`validate` reports it as TM0708);
 * - a value that would begin an argument with `-` before a literal `--` is refused, since the
 *   program would read it as an option (`--output=...` writing a file): unless the parameter is
 *   listed in `allow_options` (`validate` warns about such places, TM0709).
 */
export function buildArgv(spec: ExecHandler, args: Record<string, unknown>, context: Pick<RunContext, 'env' | 'secrets' | 'tool'>): string[] {
  if (spec.argv.length === 0) throw new ToolFailure(`${context.tool.name} cannot run: exec.argv is empty`);
  if (hasTemplate(spec.argv[0]!)) throw new ToolFailure(`${context.tool.name} cannot run: its program (exec.argv[0]) would come from an argument`);
  const allowed = new Set(spec.allow_options ?? []);
  let options = true;
  return spec.argv.map((part, i) => {
    const filled = fillCatalogText(part, args, context.env, context.secrets);
    if (i > 0 && options && !part.startsWith('-') && filled.startsWith('-') && hasTemplate(part)) {
      const names = templateParameters(part).filter((name) => !allowed.has(name));
      if (names.length > 0) {
        throw new ToolFailure(
          `${context.tool.name} refused: the value of ${names.map((n) => `"${n}"`).join(', ')} starts with "-", and as argument ${i} of ${spec.argv[0]} it would be read as an option`,
        );
      }
    }
    if (part === '--') options = false;
    return filled;
  });
}

/**
 * The result of an `output: json` program: what it printed on standard output, parsed (standard
 * error is left out: it is the program's talk, not its answer). Output cut at the limit, empty or
 * not JSON is the call's error, saying which: a result the checks would misread is worse than none.
 */
function jsonOutput(stdout: string, cut: boolean, limit: number, tool: string, program: string): unknown {
  if (cut) throw new ToolFailure(`${tool}: ${program} printed more than ${limit} bytes (max_output_bytes), so its JSON output (output: json) was cut and cannot be read`);
  const text = stdout.trim();
  if (!text) throw new ToolFailure(`${tool}: ${program} printed nothing on standard output, and its handler says output: json`);
  try {
    return JSON.parse(text);
  } catch {
    // V8's message quotes the text raw; the excerpt here is escaped.
    throw new ToolFailure(`${tool}: ${program} printed something that is not JSON on standard output (output: json); it began ${JSON.stringify(text.slice(0, 80))}`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is already empty
  }
}

/** One output stream, kept up to `read` bytes; `text()` redacts first and cuts at `limit` bytes after. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  constructor(
    private readonly limit: number,
    private readonly read: number,
  ) {}

  add(chunk: Buffer): void {
    this.seen += chunk.length;
    if (this.kept >= this.read) return;
    const part = chunk.subarray(0, this.read - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get cut(): boolean {
    return this.seen > this.limit;
  }

  text(context: Pick<RunContext, 'secrets'>): string {
    const redacted = context.secrets.redact(Buffer.concat(this.chunks).toString('utf8'));
    const bytes = Buffer.from(redacted, 'utf8');
    if (bytes.length <= this.limit) return redacted;
    // Cut at a byte limit, dropping a character the cut split in two.
    return bytes.subarray(0, this.limit).toString('utf8').replace(/\uFFFD$/, '');
  }
}
