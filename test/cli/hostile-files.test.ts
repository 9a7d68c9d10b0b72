import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, ROOT } from '../helpers/paths.js';

/**
 * Files a catalog, a flag or an argument may name are untrusted: devices, FIFOs, huge files,
 * symlink tricks, alias bombs and files that are not catalogs at all must each end in one clear
 * error, quickly, without quoting what the file holds.
 */

const HOSTILE = join(FIXTURES, 'hostile');
const posix = process.platform !== 'win32';
/** Every run is killed after this long, so a regression (a read that blocks or never ends) fails instead of hanging. */
const KILL_AFTER_MS = 15_000;
const TEST_TIMEOUT_MS = 30_000;
/** And killed past this much memory (where /proc tells), so a regression cannot exhaust the machine. */
const KILL_ABOVE_RSS_BYTES = 1.5 * 1024 ** 3;

function residentBytes(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0; // no /proc here, or the process has ended
  }
}

interface GuardedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  killed: boolean;
  ms: number;
}

/** Children still running; a test that fails or times out must not leave one reading /dev/zero. */
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** Runs the built toolman with a kill timer and a cap on what it may print. */
function run(args: string[], cwd = ROOT): Promise<GuardedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let killed = false;
    const kill = () => {
      killed = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(kill, KILL_AFTER_MS);
    const memory = setInterval(() => residentBytes(child.pid) > KILL_ABOVE_RSS_BYTES && kill(), 100);
    const take = (into: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (into === 'stdout') stdout += chunk;
      else stderr += chunk;
      if (stdout.length + stderr.length > 1_000_000) kill(); // a file's content being dumped
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      clearTimeout(timer);
      clearInterval(memory);
      resolve({ code, stdout, stderr, killed, ms: performance.now() - started });
    });
  });
}

let dir: string;
const TOOL_CATALOG = 'toolman: 1\ntools:\n  - name: echo_args\n    description: Echo the arguments back, for tests of argument files.\n    handler: { mock: [ { result: ok } ] }\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-hostile-'));
  writeFileSync(join(dir, 'tools.yaml'), TOOL_CATALOG);
  if (posix) {
    const made = spawnSync('mkfifo', [join(dir, 'pipe')]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    writeFileSync(join(dir, 'includes-fifo.yaml'), 'toolman: 1\ninclude: [./pipe]\ntools: []\n');
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!posix)('devices and FIFOs are refused at once, never read', () => {
  it(
    'an include of /dev/zero or /dev/urandom is an include error naming what the file is',
    async () => {
      const result = await run(['validate', join(HOSTILE, 'includes-devices.yaml')]);
      expect(result.killed).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/TM0004 cannot include "\/dev\/zero" \([^)]*\): it is a character device, not a regular file/);
      expect(result.stdout).toMatch(/TM0004 cannot include "\/dev\/urandom" \([^)]*\): it is a character device/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an include of a FIFO with no writer does not block',
    async () => {
      const result = await run(['validate', 'includes-fifo.yaml'], dir);
      expect(result.killed).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/includes-fifo\.yaml:2:11 error TM0004 cannot include "\.\/pipe" \(pipe\): it is a FIFO \(named pipe\), not a regular file/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '-c /dev/zero is an unreadable catalog (exit 2), not a read that never ends',
    async () => {
      const result = await run(['-c', '/dev/zero', 'list']);
      expect(result.killed).toBe(false);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('cannot read catalog /dev/zero: it is a character device, not a regular file');
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'call --args-file /dev/zero and call --batch FIFO are refused',
    async () => {
      const [args, batch] = await Promise.all([run(['-c', 'tools.yaml', 'call', 'echo_args', '--args-file', '/dev/zero'], dir), run(['-c', 'tools.yaml', 'call', '--batch', 'pipe'], dir)]);
      expect(args.killed).toBe(false);
      expect(args.code).toBe(2);
      expect(args.stderr).toContain('cannot read --args-file /dev/zero: it is a character device, not a regular file');
      expect(batch.killed).toBe(false);
      expect(batch.code).toBe(2);
      expect(batch.stderr).toContain('cannot read --batch pipe: it is a FIFO (named pipe), not a regular file');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'import, tokens and eval search refuse /dev/zero',
    async () => {
      const results = await Promise.all([run(['import', '/dev/zero']), run(['tokens', '/dev/zero']), run(['-c', 'tools.yaml', 'eval', 'search', '--cases', '/dev/zero'], dir)]);
      for (const result of results) {
        expect(result.killed).toBe(false);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/cannot read .*\/dev\/zero: it is a character device, not a regular file/);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('files over the size limit are refused by their size, before reading', () => {
  it(
    'a 65 MiB catalog, and a 65 MiB include, name the size and the limit',
    async () => {
      const big = join(dir, 'big.yaml');
      writeFileSync(big, 'toolman: 1\n');
      truncateSync(big, 65 * 1024 * 1024); // sparse: instant to make
      writeFileSync(join(dir, 'includes-big.yaml'), 'toolman: 1\ninclude: [./big.yaml]\ntools: []\n');
      const root = await run(['validate', 'big.yaml'], dir);
      expect(root.killed).toBe(false);
      expect(root.code).toBe(2);
      expect(root.stderr).toContain('cannot read catalog big.yaml: it is 65 MiB, over the 64 MiB limit');
      const included = await run(['validate', 'includes-big.yaml'], dir);
      expect(included.code).toBe(1);
      expect(included.stdout).toContain('TM0004 cannot include "./big.yaml" (big.yaml): it is 65 MiB, over the 64 MiB limit');
      expect(included.ms).toBeLessThan(10_000);
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!posix)('files are identified by their real path', () => {
  it(
    'a file reached through two symlinked folders is read once',
    async () => {
      const shared = join(dir, 'shared');
      mkdirSync(shared);
      writeFileSync(join(shared, 'tools.yaml'), TOOL_CATALOG);
      symlinkSync(shared, join(dir, 'link-a'));
      symlinkSync(shared, join(dir, 'link-b'));
      writeFileSync(join(dir, 'links.yaml'), 'toolman: 1\ninclude: [./link-a/tools.yaml, ./link-b/tools.yaml, ./shared/tools.yaml]\n');
      const validated = await run(['validate', 'links.yaml', '--json'], dir);
      expect(validated.killed).toBe(false);
      const report = JSON.parse(validated.stdout) as { files: string[]; diagnostics: { code: string }[] };
      expect(report.diagnostics.map((d) => d.code)).not.toContain('TM0201');
      expect(report.files).toEqual(['links.yaml', 'link-a/tools.yaml']); // shown as written
      const listed = JSON.parse((await run(['list', 'links.yaml', '--json'], dir)).stdout) as { tools: { name: string }[] };
      expect(listed.tools.map((t) => t.name)).toEqual(['echo_args']);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an include cycle through a symlinked folder is reported as a cycle',
    async () => {
      const loop = join(dir, 'loop');
      mkdirSync(loop);
      symlinkSync('.', join(loop, 'again'));
      writeFileSync(join(loop, 'a.yaml'), 'toolman: 1\ninclude: [./again/a.yaml]\ntools: []\n');
      const result = await run(['validate', 'loop/a.yaml'], dir);
      expect(result.killed).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('loop/a.yaml:2:11 error TM0005 include cycle: loop/a.yaml -> loop/again/a.yaml');
      expect(result.stdout).toMatch(/✖ 1 error/);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a file that is not a catalog is reported once, without its content', () => {
  const SECRET = /FAKE[-_]hostile|root:x:0|AWS_SECRET|password|token =|\[database\]/;

  it(
    'included text files, broken or parsing as YAML, each get one error and no code frame',
    async () => {
      const text = await run(['validate', join(HOSTILE, 'includes-text.yaml')]);
      expect(text.killed).toBe(false);
      expect(text.code).toBe(1);
      expect(text.stdout).not.toMatch(SECRET);
      expect(text.stdout).not.toMatch(/^\s*>?\s*\d+ \|/m); // no code frame at all
      expect(text.stdout).toMatch(/fake-secrets\.txt:2:1 error TM0006 the file holds a string, not a catalog mapping/);
      expect(text.stdout).toMatch(/secrets-broken\.txt:2:\d+ error TM0001 not valid YAML \(line 2\), and the file does not look like a toolman catalog/);
      expect(text.stdout).toMatch(/secrets-mapping\.yaml:1:1 error TM0006 .*does not look like a toolman catalog/);
      expect(text.stdout).toMatch(/✖ 3 errors/);
      for (const format of [['--json'], ['--format', 'sarif']]) {
        const other = await run(['validate', join(HOSTILE, 'includes-text.yaml'), ...format]);
        // SARIF's rules carry the docs of every rule (TM1205's speak of passwords): the findings must not.
        const findings = format[0] === '--json' ? other.stdout : JSON.stringify((JSON.parse(other.stdout) as { runs: { results: unknown }[] }).runs.map((r) => r.results));
        expect(findings).not.toMatch(SECRET);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a text file given as the catalog is not quoted either, by validate or by other commands',
    async () => {
      for (const file of ['fake-secrets.txt', 'secrets-broken.txt', 'secrets-mapping.yaml']) {
        const validated = await run(['validate', join(HOSTILE, file)]);
        expect(validated.code).toBe(1);
        expect(validated.stdout + validated.stderr).not.toMatch(SECRET);
        const listed = await run(['-c', join(HOSTILE, file), 'list']);
        expect(listed.code).toBe(1);
        expect(listed.stdout + listed.stderr).not.toMatch(SECRET);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('YAML limits count what aliases add, and locations are 1-based', () => {
  it(
    'a 1,000,001-value enum written out without aliases validates (no TM0003)',
    async () => {
      const values = Array.from({ length: 1_000_001 }, (_, i) => `v${i}`).join(', ');
      writeFileSync(
        join(dir, 'enum.yaml'),
        `toolman: 1\ntools:\n  - name: pick\n    description: Pick one value from a very long list of allowed values.\n    parameters:\n      type: object\n      properties:\n        value:\n          type: string\n          description: The value to pick.\n          enum: [${values}]\n      required: [value]\n    handler: { mock: [ { result: ok } ] }\n`,
      );
      const result = await run(['validate', 'enum.yaml', '--json'], dir);
      expect(result.killed).toBe(false);
      const report = JSON.parse(result.stdout) as { ok: boolean; diagnostics: { code: string }[] };
      expect(report.diagnostics.map((d) => d.code)).not.toContain('TM0003');
      expect(report.ok).toBe(true);
      expect(result.ms).toBeLessThan(KILL_AFTER_MS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a 1 KB alias bomb is refused quickly by validate and by import',
    async () => {
      const validated = await run(['validate', join(HOSTILE, 'alias-bomb.yaml')]);
      expect(validated.killed).toBe(false);
      expect(validated.code).toBe(1);
      expect(validated.stdout).toMatch(/alias-bomb\.yaml:3:8 error TM0003 aliases expand this document to more than 1,000,000 nodes/);
      expect(validated.ms).toBeLessThan(5_000);
      const imported = await run(['import', join(HOSTILE, 'alias-bomb.yaml')]);
      expect(imported.killed).toBe(false);
      expect(imported.code).toBe(2);
      expect(imported.stderr).toMatch(/alias-bomb\.yaml:3:8 is not valid YAML: aliases expand this document to more than 1,000,000 nodes/);
      expect(imported.ms).toBeLessThan(5_000);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an empty value is located just past its colon, never at column 0',
    async () => {
      const result = await run(['validate', join(HOSTILE, 'empty-value.yaml'), '--json']);
      const report = JSON.parse(result.stdout) as { diagnostics: { code: string; line: number; column: number }[] };
      expect(report.diagnostics.length).toBeGreaterThan(0);
      for (const d of report.diagnostics) expect(d.column, JSON.stringify(d)).toBeGreaterThanOrEqual(1);
      // `    description:` ends at column 16; the missing value is at 17.
      expect(report.diagnostics.find((d) => d.code === 'TM0102')).toMatchObject({ line: 4, column: 17 });
    },
    TEST_TIMEOUT_MS,
  );
});
