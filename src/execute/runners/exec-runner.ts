import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fillSecrets, fillTemplate } from '../templates.js';
import type { ToolRunner } from '../runner.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20;
/** Passed through always, so programs can be found and behave; everything else only by `env`. */
const BASE_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT'];

/**
 * Runs a program from its argv list, never through a shell: each `{{param}}` is replaced inside one
 * argument, so a value like `; rm -rf ~` stays one literal argument. The process gets its own
 * group, killed whole on timeout or cancel; stdout and stderr are capped.
 */
export const execRunner: ToolRunner<'exec'> = {
  kind: 'exec',
  run({ exec: spec }, args, context) {
    let argv: string[];
    try {
      // `${env:NAME}` is filled in the catalog's own text only, never in argument values.
      argv = spec.argv.map((part) => fillTemplate(fillSecrets(part, context.env, context.secrets), args));
    } catch (error) {
      return Promise.reject(error);
    }
    const [program, ...rest] = argv;
    if (!program) return Promise.reject(new Error('exec.argv is empty'));
    const env: Record<string, string> = {};
    for (const name of [...BASE_ENV, ...(spec.env ?? [])]) if (context.env[name] !== undefined) env[name] = context.env[name]!;
    const limit = spec.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES;

    return new Promise((resolvePromise, reject) => {
      const child = spawn(program, rest, { cwd: resolve(context.baseDir, spec.cwd ?? '.'), env, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const out = { stdout: '', stderr: '', cut: false };
      const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
        if (out[stream].length >= limit) {
          out.cut = true;
          return;
        }
        out[stream] += chunk.toString('utf8').slice(0, limit - out[stream].length);
        if (out[stream].length >= limit) out.cut = true;
      };
      child.stdout.on('data', collect('stdout'));
      child.stderr.on('data', collect('stderr'));
      const kill = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const onAbort = () => kill();
      context.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error: NodeJS.ErrnoException) => {
        context.signal.removeEventListener('abort', onAbort);
        reject(new Error(error.code === 'ENOENT' ? `program not found: ${program}` : error.message));
      });
      child.on('close', (code, signal) => {
        context.signal.removeEventListener('abort', onAbort);
        if (context.signal.aborted) return reject(context.signal.reason);
        const result = { exit_code: code, ...(signal ? { signal } : {}), stdout: out.stdout, stderr: out.stderr, ...(out.cut ? { output_cut_at_bytes: limit } : {}) };
        if (code === 0) resolvePromise(result);
        else reject(Object.assign(new Error(`${program} exited with ${code ?? signal}${out.stderr ? `: ${out.stderr.trim().slice(0, 500)}` : ''}`), { result }));
      });
    });
  },
};
