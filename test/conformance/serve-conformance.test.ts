import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceRequired, CONFORMANCE_DIR, describeFailures, findConformance, judge, loadBaseline, runLeg, type ConformanceToolchain } from '../helpers/conformance.js';
import { startHttp } from '../serve/serve-client.js';

// The official MCP conformance suite against the built `toolman serve --port 0 --yes`, at both
// revisions toolman serves on one port: 2025-11-25 (initialize sessions) and 2026-07-28
// (stateless). `--requirements REV` runs exactly the scenarios the revision requires, plus the
// ones it runs without scoring (the 2026 header-validation scenarios among them); every scenario
// must pass except what serve-baseline.yml lists, each with its reason, and a listed one that
// starts passing fails too (the baseline only shrinks).
const CATALOG = join(CONFORMANCE_DIR, 'serve-catalog.yaml');
const baseline = loadBaseline(join(CONFORMANCE_DIR, 'serve-baseline.yml'));
const toolchain = findConformance();
const missing = 'missing' in toolchain ? toolchain.missing : undefined;
const required = conformanceRequired();

describe.skipIf(missing !== undefined && !required)(`toolman serve against the MCP conformance suite${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let served: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    if (missing) throw new Error(`the conformance toolchain is required here (CI or TOOLMAN_CONFORMANCE=required) but ${missing}`);
    served = await startHttp(['--yes'], {}, CATALOG);
  });
  afterAll(async () => {
    served?.child.kill('SIGTERM');
    await served?.done;
  });

  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    it(`[conformance] server scenarios at ${revision} pass, but for the baseline`, async () => {
      const leg = await runLeg(toolchain as ConformanceToolchain, { side: 'server', name: `serve-${revision}`, url: served.url, select: ['--requirements', revision], timeoutMs: 120_000 });
      console.info(`conformance server leg ${revision}: ${leg.scenarios.size} scenarios in ${Math.round(leg.durationMs)} ms (exit ${leg.code})`);
      expect(leg.scenarios.size, `no scenario results in ${leg.outDir}; runner said:\n${leg.stdout.slice(-2000)}\n${leg.stderr.slice(-2000)}`).toBeGreaterThan(20);
      const verdict = judge(leg.scenarios, baseline[revision] ?? {});
      expect(describeFailures(verdict.unexpected), 'scenarios failing outside serve-baseline.yml').toBe('');
      expect(verdict.fixed, 'baseline entries that pass now: take them out of serve-baseline.yml').toEqual([]);
      expect(verdict.absent, 'baseline entries for scenarios that did not run').toEqual([]);
      // What issue 21 names, whatever the baseline says.
      const done = revision === '2026-07-28' ? ['server-stateless', 'caching', 'http-header-validation', 'tools-list', 'dns-rebinding-protection'] : ['server-initialize', 'tools-list', 'dns-rebinding-protection'];
      for (const scenario of done) expect(leg.scenarios.has(scenario), `${scenario} ran`).toBe(true);
      for (const scenario of ['caching', 'http-header-validation'].filter((s) => revision === '2026-07-28' && s)) expect(leg.scenarios.get(scenario)!.failed, `${scenario} fully passes`).toEqual([]);
    }, 180_000);
  }
});
