import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { compareRuns, parseVariant } from '../../src/testing/compare-runs.js';
import { loadSuite } from '../../src/testing/load-suite.js';
import { DEFAULT_PRICES } from '../../src/testing/prices.js';
import { runSuite } from '../../src/testing/run-suite.js';
import { summarizeRuns } from '../../src/testing/suite-report.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The test runner reads the session's call record (catalog name, decoded arguments, how the call
 * went) instead of decoding calls again: an alias in an expectation names the tool it stands for,
 * a call refused before it ran is not the call a case asks for, and precision and recall are the
 * same figures in a plain run and in --compare.
 */
const CATALOG = join(ROOT, 'test/fixtures/catalogs/secrets.yaml');
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const dir = mkdtempSync(join(tmpdir(), 'toolman-call-records-'));
let n = 0;
const said = (r: RecordedRequest) => JSON.stringify(r.body.messages ?? r.body.input ?? '');

async function run(yaml: string) {
  const file = join(dir, `s${++n}.yaml`);
  writeFileSync(file, `name: s${n}\nproviders: [openai:m]\n${yaml}`);
  const manager = await ToolManager.open({ catalogs: [CATALOG], requireValid: 'all', env: { OPENAI_API_KEY: 'sk-call-records-key-0001', OPENAI_BASE_URL: `${server.url}/v1` } });
  try {
    const suite = loadSuite(file, { catalog: manager.catalog });
    const results = await runSuite({ manager, suite, targets: [{ provider: 'openai', model: 'm', label: 'openai:m' }], concurrency: 2, prices: DEFAULT_PRICES });
    return { suite, results };
  } finally {
    await manager.close();
  }
}

describe('expectations read the call record', () => {
  it('an alias in an expectation matches a call of the tool it names (and the tool name matches a call made by alias)', async () => {
    server.script((r) => (said(r).includes('tool') ? { text: 'Shipped.' } : said(r).includes('by alias') ? { toolCalls: [{ name: 'lookup_order', arguments: { order: 'A1' } }] } : { toolCalls: [{ name: 'order_status', arguments: { order: 'A1' } }] }));
    const { results } = await run(`cases:
  - name: expects the alias
    prompt: where is order A1?
    expect: { calls: [{ tool: lookup_order, args: { order: A1 } }], call_count: { lookup_order: 1 }, not_called: [refund_order] }
  - name: calls by alias
    prompt: where is order A1, by alias?
    expect: { calls: [{ tool: order_status }] }
`);
    expect(results.map((r) => [r.case, r.passed, r.failures])).toEqual([
      ['expects the alias', true, []],
      ['calls by alias', true, []],
    ]);
    expect(results[1]!.calls[0]).toMatchObject({ name: 'order_status', arguments: { order: 'A1' }, ok: true });
  });

  it('a not_called pattern written for an alias matches a call of the renamed tool (it could never fail before)', async () => {
    server.script((r) => (said(r).includes('tool') ? { text: 'Shipped.' } : { toolCalls: [{ name: 'order_status', arguments: { order: 'A1' } }] }));
    const { results } = await run(`cases:
  - name: glob over the old name
    prompt: where is order A1?
    expect: { not_called: [lookup_*] }
`);
    expect(results[0]!.passed).toBe(false);
    expect(results[0]!.failures).toEqual([{ expectation: 'not_called lookup_*', message: 'called order_status' }]);
  });

  it('a call refused before it ran (invalid arguments, unknown tool) does not satisfy calls:, and the failure says why', async () => {
    server.script((r) => (said(r).includes('tool') ? { text: 'Done.' } : { toolCalls: [{ name: 'order_status', arguments: { number: 'A1' } }] }));
    const { results } = await run(`cases:
  - name: bad arguments
    prompt: where is order A1?
    expect: { calls: [{ tool: order_status }] }
`);
    expect(results[0]!.passed).toBe(false);
    expect(results[0]!.failures).toEqual([{ expectation: 'calls[0] order_status', message: expect.stringMatching(/^order_status was called, but the call was refused before it ran: .*missing required argument "order"/) }]);
  });
});

describe('one precision and recall', () => {
  it('a plain run and --compare give the same figures for the same runs', async () => {
    // Two cases with different repeats, a wrong tool in one: pooled counts (the old report) and
    // means of case means (the old comparison) disagree on these runs; now there is one definition.
    server.script((r) => {
      if (said(r).includes('tool')) return { text: 'ok' };
      if (said(r).includes('refund')) return { toolCalls: [{ name: 'order_status', arguments: { order: 'B2' } }, { name: 'refund_order', arguments: { order: 'B2' } }] };
      return { toolCalls: [{ name: 'order_status', arguments: { order: 'A1' } }] };
    });
    const { suite, results } = await run(`cases:
  - name: status
    repeat: 3
    prompt: where is order A1?
    expect: { calls: [{ tool: order_status }] }
  - name: refund
    repeat: 1
    approve: true
    prompt: please refund order B2
    expect: { calls: [{ tool: refund_order }] }
`);
    const report = summarizeRuns(suite, results).providers[0]!;
    const comparison = compareRuns(parseVariant('eager', 'A'), parseVariant('eager', 'B'), [{ suite: suite.name, results }], [{ suite: suite.name, results }]);
    expect(report.precision).toBeCloseTo(comparison.overall[0]!.precision.a!, 12);
    expect(report.recall).toBeCloseTo(comparison.overall[0]!.recall.a!, 12);
    // status: precision 1 on each of 3 runs; refund: 1 of 2 tools called was expected.
    expect(report.precision).toBeCloseTo((1 + 0.5) / 2, 12);
  });
});
