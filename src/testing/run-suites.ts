import { resolve } from 'node:path';
import { chooseCatalogs } from '../manager/choose-catalogs.js';
import type { ToolManager } from '../manager/tool-manager.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { plainText } from '../shared/plain-text.js';
import { NATIVE_SEARCH } from '../conversation/native-search.js';
import type { Variant } from './compare-runs.js';
import type { SuitePlan } from './results-document.js';
import type { RunResult, SequentialOptions } from './run-suite.js';
import type { SuiteReport } from './suite-report.js';
import { INTERRUPTED, type Prices, type ProviderTarget, type Suite } from './suite-types.js';

/** What one `toolman test` invocation asks for, its flags parsed. */
export interface SuitesRequest {
  suites: string[];
  /** --catalog: the catalog every suite runs on (else ./toolman.yaml, else, with `suiteCatalogs`, each suite's own). */
  catalog?: string[];
  /** --suite-catalog: a suite's `catalog:` may be loaded (only its mock handlers answer, no MCP server starts). */
  suiteCatalogs?: boolean;
  /** --live-tools: a suite's `tools: live` runs the catalog's real handlers (a suite alone cannot ask for that). */
  liveTools?: boolean;
  /** --provider: over each suite's `providers:`. */
  providers?: ProviderTarget[];
  baseUrl?: string;
  record?: string;
  replay?: string;
  repeat?: number;
  concurrency: number;
  maxCost?: number;
  minPassRate: number;
  /** --prices: over the built-in table and each suite's. */
  prices: Prices;
  signal?: AbortSignal;
  /** --sequential: stop each case's repeats once its verdict is settled (sequential-test.ts). */
  sequential?: SequentialOptions;
  /** --shard I/N: only this slice of the runs. */
  shard?: { index: number; count: number };
}

/** Where the runs' surroundings come from: the CLI passes its own. */
export interface SuitesHost {
  cwd: string;
  /**
   * Opens catalogs through the facade and runs `run`. Without `share`, closes what it opened; with
   * it, a host may keep the manager for the next `open` with the same catalogs and `share` key (the
   * check before the runs, then the runs), and closes it when the command ends.
   */
  open<T>(catalogs: readonly string[] | undefined, run: (manager: ToolManager) => Promise<T>, namedBy: string | undefined, share?: string): Promise<T>;
  /** A line for the person running the suites (estimates, replay differences). */
  say(line: string): void;
  /** Progress of one suite's runs. */
  progress(label: string): { update(result: RunResult, done: number, total: number): void; end(): void };
}

export interface SuiteOutcome {
  suite: Suite;
  /** What the suite planned (cases, bars, repeats, providers): what a results file carries for `toolman test merge`. */
  plan: SuitePlan;
  /** The runs that finished or could not run: an interrupted run is not a result. */
  results: RunResult[];
  report: SuiteReport;
  /** Runs Ctrl-C stopped or kept from starting. */
  interrupted: number;
}

/** What the runs of one invocation have spent so far, against --max-cost. */
export interface Spent {
  spent: number;
}

interface PlannedSuite {
  file: string;
  suite: Suite;
  targets: ProviderTarget[];
  prices: Prices;
  catalogs: string[] | undefined;
  namedBy: string | undefined;
}

/** One suite file as a variant runs it: repeats, profile, providers, prices and the catalog the user chose. */
async function planSuite(file: string, request: SuitesRequest, host: SuitesHost, variant: Variant | undefined): Promise<PlannedSuite> {
  const { loadSuite } = await import('./load-suite.js');
  const { DEFAULT_PRICES } = await import('./prices.js');
  const suite = loadSuite(file, { cwd: host.cwd });
  // A suite is someone else's file: it may not choose to run real programs. The user's flag may.
  if (suite.tools === 'live' && !request.liveTools && once(request, `live:${file}`)) host.say(`warning: ${plainText(file)} asks for tools: live; its tools answer from mocks and stubs only (pass --live-tools to run the catalog's real handlers)`);
  // The flag is the user's consent to a suite's tools: live, never a way to make a suite live.
  if (suite.tools !== 'live' && request.liveTools && once(request, `not-live:${file}`)) host.say(`note: --live-tools has no effect on ${plainText(file)}: it does not say tools: live, so its tools answer from mocks and stubs (add tools: live to the suite to run the catalog's real handlers)`);
  applyRequest(suite, request, variant);
  const targets = request.providers?.length ? request.providers : suite.providers;
  const prices: Prices = { ...DEFAULT_PRICES, ...suite.prices, ...request.prices };
  if (variant?.catalog) return { file, suite, targets, prices, catalogs: variant.catalog.map((f) => resolve(host.cwd, f)), namedBy: undefined };
  // A suite is untrusted: the catalog it names is loaded only on the user's word.
  const choice = chooseCatalogs(host.cwd, request.catalog, { by: `the suite ${file}`, files: suite.catalog, flag: '--suite-catalog', use: request.suiteCatalogs === true });
  if (choice.notice && once(request, `catalog:${file}`)) host.say(choice.notice);
  return { file, suite, targets, prices, catalogs: choice.catalogs, namedBy: choice.namedBy };
}

/** Whether `key` is new for this invocation (a suite is planned again for each variant and run). */
const said = new WeakMap<SuitesRequest, Set<string>>();
function once(request: SuitesRequest, key: string): boolean {
  let keys = said.get(request);
  if (!keys) said.set(request, (keys = new Set()));
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

function applyRequest(suite: Suite, request: SuitesRequest, variant: Variant | undefined): void {
  if (suite.tools === 'live' && !request.liveTools) {
    suite.tools = 'mock';
    suite.liveToolsWithheld = true;
  }
  if (request.repeat !== undefined) for (const c of suite.cases) c.repeat = request.repeat;
  if (variant?.profile) suite.profile = variant.profile;
}

/** Opens a planned suite's catalog and checks the suite's names against it (and the variant's profile). */
async function withSuiteCatalog<T>(planned: PlannedSuite, request: SuitesRequest, host: SuitesHost, variant: Variant | undefined, run: (manager: ToolManager, suite: Suite) => Promise<T>): Promise<T> {
  return host.open(
    planned.catalogs,
    async (manager) => {
      if (variant?.loading) manager.useLoading(variant.loading);
      if (variant?.profile && !manager.catalog.profiles.has(variant.profile)) {
        throw new ToolmanError(ErrorCode.USAGE, `variant ${variant.label} (${plainText(variant.spec)}): the catalog of ${plainText(planned.suite.name)} has no profile ${JSON.stringify(plainText(variant.profile))}`, { hint: `its profiles: ${[...manager.catalog.profiles.keys()].map(plainText).join(', ') || '(none)'}` });
      }
      // The suite's tool, argument and profile names, checked against the catalog it really runs on.
      const { loadSuite } = await import('./load-suite.js');
      const suite = loadSuite(planned.file, { cwd: host.cwd, catalog: manager.catalog });
      applyRequest(suite, request, variant);
      return run(manager, suite);
    },
    planned.namedBy,
    // One manager per variant (a variant's loading changes its catalog).
    `variant:${variant?.label ?? ''}`,
  );
}

/** The plan of one suite as run: every case's bar and repeats (after --repeat), the providers' labels. */
function suitePlan(suite: Suite, targets: readonly ProviderTarget[]): SuitePlan {
  return { name: suite.name, file: suite.file, providers: targets.map((t) => t.label), cases: suite.cases.map((c) => ({ name: c.name, min_pass_rate: c.minPassRate, repeat: c.repeat })) };
}

const labelOf = (suite: Suite, variant: Variant | undefined) => `${plainText(suite.name)}${variant?.label ? ` [${variant.label}]` : ''}`;

/**
 * Before anything runs: every suite opened on every variant (a missing catalog file or profile,
 * a misspelled tool, stops here, not after another variant's runs), and for a live run each
 * provider's key and the estimate of the whole invocation, held against --max-cost. With a cap,
 * every model needs a price.
 */
export async function preflight(request: SuitesRequest, host: SuitesHost, variants: readonly (Variant | undefined)[]): Promise<void> {
  const { PRICES_DATE } = await import('./prices.js');
  const live = !request.replay;
  let total = 0;
  let runs = 0;
  const unpriced = new Set<string>();
  for (const variant of variants) {
    for (const file of request.suites) {
      const planned = await planSuite(file, request, host, variant);
      // A variant the providers cannot run (the provider's own tool search on one without it) is
      // refused here, before another variant's runs are paid for.
      if (variant?.search === 'native') {
        const without = planned.targets.filter((t) => !NATIVE_SEARCH.has(t.provider));
        if (without.length) throw new ToolmanError(ErrorCode.USAGE, `variant ${variant.label} (${variant.spec}) uses the provider's own tool search, which ${without.map((t) => t.label).join(', ')} ${without.length === 1 ? 'does' : 'do'} not have`, { hint: 'compare native on anthropic or openai-responses (--provider anthropic:MODEL), or compare deferred instead' });
      }
      await withSuiteCatalog(planned, request, host, variant, async (manager, suite) => {
        if (!live) return;
        for (const target of planned.targets) {
          manager.credentials(target.provider, { purpose: (label) => `a live run uses ${label}`, hint: (variable) => `set ${variable}, or run offline from recordings: toolman test SUITE --replay DIR`, ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}), keyOptionalWithBaseUrl: true });
        }
        const { estimateCost } = await import('./estimate-cost.js');
        const estimate = await estimateCost(manager, suite, planned.targets, planned.prices, request.baseUrl ? { baseUrl: request.baseUrl } : {});
        // A shard runs about 1/N of the runs; --sequential makes at most the planned ones.
        if (request.shard) {
          const share = 1 / request.shard.count;
          Object.assign(estimate, { runs: Math.ceil(estimate.runs * share), input_tokens: Math.round(estimate.input_tokens * share), output_tokens: Math.round(estimate.output_tokens * share), usd: estimate.usd === null ? null : estimate.usd * share, method: `${estimate.method}; this shard's share, 1/${request.shard.count}` });
        }
        if (request.sequential) estimate.method += '; at most: --sequential stops cases early';
        runs += estimate.runs;
        if (estimate.usd === null) for (const m of estimate.unpriced) unpriced.add(plainText(m));
        else total += estimate.usd;
        host.say(
          `estimated cost of ${labelOf(suite, variant)}: ${estimate.usd === null ? `unknown (no price for ${estimate.unpriced.map(plainText).join(', ')}; give one with --prices FILE)` : `$${estimate.usd.toFixed(4)}`} for ${estimate.runs} runs, ~${estimate.input_tokens} input and ~${estimate.output_tokens} output tokens (list prices of ${PRICES_DATE}; ${estimate.method})`,
        );
      });
    }
  }
  if (!live) return;
  if (variants.length * request.suites.length > 1) host.say(`estimated cost of this run: ${unpriced.size ? `unknown (no price for ${[...unpriced].join(', ')})` : `$${total.toFixed(4)}`} for ${runs} runs`);
  const { maxCost } = request;
  if (maxCost === undefined) return;
  if (unpriced.size) {
    throw new ToolmanError(ErrorCode.USAGE, `--max-cost ${maxCost} needs a price for every model, and there is none for ${[...unpriced].join(', ')}; nothing was run`, { hint: 'give prices with --prices FILE ({"MODEL": {"input": N, "output": N}}, dollars per million tokens)' });
  }
  if (total > maxCost) {
    throw new ToolmanError(ErrorCode.BUDGET, `the estimated cost $${total.toFixed(4)} is over --max-cost ${maxCost}; nothing was run`, { hint: 'raise --max-cost, lower --repeat, or run fewer providers' });
  }
}

/** Loads and runs every suite (each over the catalog chosen for it); `preflight` has checked them and the cost. */
export async function runSuites(request: SuitesRequest, host: SuitesHost, variant?: Variant, budget: Spent = { spent: 0 }): Promise<SuiteOutcome[]> {
  const { runSuite } = await import('./run-suite.js');
  const { summarizeRuns } = await import('./suite-report.js');
  const outcomes: SuiteOutcome[] = [];
  // Shards are dealt over every suite's runs in turn, so each shard gets its share of each suite.
  let offset = 0;
  for (const file of request.suites) {
    if (request.signal?.aborted) break;
    const planned = await planSuite(file, request, host, variant);
    const outcome = await withSuiteCatalog(planned, request, host, variant, async (manager, suite) => {
      const progress = host.progress(labelOf(suite, variant));
      const plan = suitePlan(suite, planned.targets);
      const shard = request.shard ? { ...request.shard, offset } : undefined;
      offset += request.sequential ? plan.cases.length * plan.providers.length : plan.cases.reduce((n, c) => n + c.repeat, 0) * plan.providers.length;
      const results = await runSuite({
        manager,
        suite,
        targets: planned.targets,
        ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}),
        ...(request.record ? { record: resolve(host.cwd, request.record, variant?.label ?? '') } : {}),
        ...(request.replay ? { replay: resolve(host.cwd, request.replay, variant?.label ?? '') } : {}),
        concurrency: request.concurrency,
        prices: planned.prices,
        ...(request.maxCost !== undefined ? { maxCost: Math.max(0, request.maxCost - budget.spent) } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        ...(variant?.search ? { search: variant.search } : {}),
        ...(request.sequential ? { sequential: request.sequential } : {}),
        ...(shard ? { shard } : {}),
        onResult: progress.update,
      });
      progress.end();
      budget.spent += results.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
      // Replay differences in tool results (and the loop's warnings), once each.
      const notices = new Map<string, string[]>();
      for (const r of results) for (const n of r.notices) notices.set(n, [...(notices.get(n) ?? []), `${r.case} #${r.repeat} [${r.provider}]`]);
      for (const [notice, runs] of notices) host.say(`warning: ${runs.slice(0, 3).map(plainText).join(', ')}${runs.length > 3 ? ` and ${runs.length - 3} more` : ''}: ${plainText(notice)}`);
      const finished = results.filter((r) => r.error !== INTERRUPTED);
      return { suite, plan, results: finished, report: summarizeRuns(suite, finished, request.minPassRate, request.sequential), interrupted: results.length - finished.length };
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Opens every suite on the catalog chosen for it (as a run would) and calls `use` with it; nothing runs. */
export async function eachSuite<T>(request: SuitesRequest, host: SuitesHost, use: (manager: ToolManager, suite: Suite) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const file of request.suites) {
    const planned = await planSuite(file, request, host, undefined);
    out.push(await withSuiteCatalog(planned, request, host, undefined, use));
  }
  return out;
}
