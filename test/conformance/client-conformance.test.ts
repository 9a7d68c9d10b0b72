import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { conformanceRequired, CONFORMANCE_DIR, describeFailures, findConformance, judge, loadBaseline, RESULTS_DIR, runLeg, type ConformanceToolchain } from '../helpers/conformance.js';

// The official MCP conformance suite against toolman's client: the suite starts
// `node client-driver.mjs URL` per scenario, and the driver runs the built CLI (bin/toolman.js; `npm test` builds it first) (`mcp tools`,
// `mcp call`, `mcp login`, `--login` with a fake browser) against the suite's servers. Both
// revisions' required client scenarios (`--requirements REV`: the 2026-07-28 request-metadata,
// header and OAuth scenarios among them) must pass but for client-baseline.yml, each entry with its
// reason; an entry that starts passing fails too (the baseline only shrinks). The toolchain is
// the one serve-conformance.test.ts uses (test/helpers/conformance.ts).
const DRIVER = join(CONFORMANCE_DIR, 'client-driver.mjs');
const baseline = loadBaseline(join(CONFORMANCE_DIR, 'client-baseline.yml'));
const toolchain = findConformance();
const missing = 'missing' in toolchain ? toolchain.missing : undefined;
const required = conformanceRequired();

/** What issue 21 names for the client (request metadata, headers, OAuth): each must run, and pass but for a single check the baseline excuses with its reason. */
const NAMED: Record<string, string[]> = {
  '2026-07-28': [
    'tools_call',
    'request-metadata',
    'http-standard-headers',
    'http-custom-headers',
    'http-invalid-tool-headers',
    'sep-2322-client-request-state',
    'auth/metadata-default',
    'auth/metadata-var1',
    'auth/basic-cimd',
    'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none',
    'auth/scope-from-www-authenticate',
    'auth/scope-step-up',
    'auth/scope-retry-limit',
    'auth/iss-wrong-issuer',
    'auth/iss-supported',
    'auth/metadata-issuer-mismatch',
    'auth/resource-mismatch',
    'auth/authorization-server-migration',
  ],
  '2025-11-25': ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'auth/metadata-default', 'auth/pre-registration'],
};

describe.skipIf(missing !== undefined && !required)(`toolman's MCP client against the MCP conformance suite${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    if (missing) throw new Error(`the conformance toolchain is required here (CI or TOOLMAN_CONFORMANCE=required) but ${missing}`);
  });

  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    it(`[conformance] client scenarios at ${revision} pass, but for the baseline`, async () => {
      // Two scenarios' toolman runs at a time (client-driver.mjs takes a slot first): the suite would start them all at once.
      const slots = join(RESULTS_DIR, `client-${revision}-slots`);
      rmSync(slots, { recursive: true, force: true });
      mkdirSync(slots, { recursive: true });
      const leg = await runLeg(toolchain as ConformanceToolchain, { side: 'client', name: `client-${revision}`, command: `${process.execPath} ${DRIVER}`, select: ['--requirements', revision], timeoutMs: 280_000, scenarioTimeoutMs: 150_000, env: { TOOLMAN_CONFORMANCE_SLOTS: slots, TOOLMAN_CONFORMANCE_PARALLEL: '2' } });
      rmSync(slots, { recursive: true, force: true });
      console.info(`conformance client leg ${revision}: ${leg.scenarios.size} scenarios in ${Math.round(leg.durationMs)} ms (exit ${leg.code})`);
      expect(leg.scenarios.size, `no scenario results in ${leg.outDir}; runner said:\n${leg.stdout.slice(-2000)}\n${leg.stderr.slice(-2000)}`).toBeGreaterThan(15);
      const verdict = judge(leg.scenarios, baseline[revision] ?? {});
      expect(describeFailures(verdict.unexpected), 'scenarios failing outside client-baseline.yml').toBe('');
      expect(verdict.fixed, 'baseline entries that pass now: take them out of client-baseline.yml').toEqual([]);
      expect(verdict.absent, 'baseline entries for scenarios that did not run').toEqual([]);
      // The named scenarios ran, and none is excused as a whole (a single check may be, with its reason).
      for (const scenario of NAMED[revision]!) {
        expect(leg.scenarios.has(scenario), `${scenario} ran`).toBe(true);
        expect(Object.keys(baseline[revision] ?? {}), `${scenario} is not excused as a whole`).not.toContain(scenario);
      }
    }, 300_000);
  }
});
