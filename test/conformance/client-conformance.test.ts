import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

// The official MCP conformance suite against toolman's client: the suite starts
// `node client-driver.mjs URL` per scenario, and the driver runs the built CLI (`mcp tools`,
// `mcp call`, `--login` with a fake browser) against the suite's servers. Both revisions'
// required client scenarios (`--requirements REV`: the 2026-07-28 request-metadata, header and
// OAuth scenarios among them) must pass but for client-baseline.yml, each entry with its reason;
// an entry that starts passing fails too (the baseline only shrinks). The toolchain
// (test/helpers/conformance.ts, the pinned suite and Node 22 in test/conformance/) is shared with
// serve-conformance.test.ts.
const HELPER = join(ROOT, 'test', 'helpers', 'conformance.ts');
const DIR = join(ROOT, 'test', 'conformance');
type Helper = typeof import('../helpers/conformance.js');

describe('toolman\'s MCP client against the MCP conformance suite', () => {
  let helper: Helper | undefined;
  let missing: string | undefined;
  beforeAll(async () => {
    if (!existsSync(HELPER)) {
      missing = 'the conformance toolchain (test/helpers/conformance.ts) is not on this branch';
      return;
    }
    helper = (await import(HELPER)) as Helper;
    const toolchain = helper.findConformance();
    if ('missing' in toolchain) missing = toolchain.missing;
    if (missing && helper.conformanceRequired()) throw new Error(`the conformance toolchain is required here (CI or TOOLMAN_CONFORMANCE=required) but ${missing}`);
  });

  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    it(`[conformance] client scenarios at ${revision} pass, but for the baseline`, async (context) => {
      if (missing || !helper) return context.skip(missing);
      const toolchain = helper.findConformance() as Exclude<ReturnType<Helper['findConformance']>, { missing: string }>;
      const baseline = helper.loadBaseline(join(DIR, 'client-baseline.yml'));
      const leg = await helper.runLeg(toolchain, { side: 'client', name: `client-${revision}`, command: `${process.execPath} ${join(DIR, 'client-driver.mjs')}`, select: ['--requirements', revision], timeoutMs: 240_000, scenarioTimeoutMs: 60_000 });
      console.info(`conformance client leg ${revision}: ${leg.scenarios.size} scenarios in ${Math.round(leg.durationMs)} ms (exit ${leg.code})`);
      expect(leg.scenarios.size, `no scenario results in ${leg.outDir}; runner said:\n${leg.stdout.slice(-2000)}\n${leg.stderr.slice(-2000)}`).toBeGreaterThan(15);
      const verdict = helper.judge(leg.scenarios, baseline[revision] ?? {});
      expect(helper.describeFailures(verdict.unexpected), 'scenarios failing outside client-baseline.yml').toBe('');
      expect(verdict.fixed, 'baseline entries that pass now: take them out of client-baseline.yml').toEqual([]);
      expect(verdict.absent, 'baseline entries for scenarios that did not run').toEqual([]);
      // What issue 21 names: request metadata, headers and OAuth, whatever the baseline says.
      const named = revision === '2026-07-28' ? ['request-metadata', 'http-standard-headers', 'http-invalid-tool-headers', 'sep-2322-client-request-state', 'auth/metadata-default', 'auth/basic-cimd', 'auth/token-endpoint-auth-basic', 'auth/scope-step-up', 'auth/iss-wrong-issuer', 'auth/resource-mismatch'] : ['initialize', 'tools_call', 'auth/metadata-default'];
      for (const scenario of named) expect(leg.scenarios.get(scenario)?.failed, `${scenario} ran and passed`).toEqual([]);
    }, 300_000);
  }
});
