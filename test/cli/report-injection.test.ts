import { describe, expect, it } from 'vitest';
import { printTestReport } from '../../src/cli/output/test-report.js';
import { renderDiff } from '../../src/cli/output/diff-report.js';
import type { CatalogDiff } from '../../src/testing/catalog-diff.js';
import type { SuiteReport } from '../../src/testing/suite-report.js';

const ESC = '\u001b';
const RLO = '\u202e';

function capture() {
  let text = '';
  return { io: { stdout: { isTTY: false, write: (s: string) => void (text += s) }, stderr: { isTTY: false, write: () => undefined }, cwd: '/', env: { NO_COLOR: '1' } }, text: () => text };
}

describe('the test report prints names from suites and recordings safely', () => {
  it('drops escape sequences and bidi overrides from providers, cases, confusions', async () => {
    const provider = `openai:gpt-4o${ESC}[31mX${ESC}]0;title\u0007`;
    const report: SuiteReport = {
      suite: 's', file: 'f', pass_rate: 0, failed_cases: 1, ok: false, not_run: { runs: 0, reasons: [] },
      cases: [{ case: `evil${RLO}txt.exe\u2066`, provider, runs: 1, passes: 0, pass_rate: 0, min_pass_rate: 1, pass_hat_k: 0, ok: false, failures: [{ expectation: `calls${ESC}[2J`, message: 'm', runs: 1 }] }],
      providers: [{ provider, cases: 1, runs: 1, passes: 0, pass_rate: 0, pass_rate_interval: { low: 0, high: 1 } as never, pass_hat_k: 0, precision: null, recall: null, rounds_mean: 1, tokens_in: 1, tokens_out: 1, tokens_reported: true, latency_ms: { mean: 1, p50: 1, p95: 1 }, cost_usd: null, cost_missing: { runs: 1, reasons: {} }, confusion: { [`a${RLO}`]: { [`b${ESC}[1A`]: 1 } } }],
    };
    const out = capture();
    await printTestReport(report, out.io as never);
    const text = out.text();
    expect(text).not.toContain(ESC);
    expect(text).not.toContain('\u0007');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('openai:gpt-4o');
  });
});

describe('diff output from an untrusted catalog', () => {
  const diff: CatalogDiff = {
    old: { name: 'old', files: [], tools: 1 },
    new: { name: 'new<script>', files: [], tools: 2 },
    added: [{ name: 'evil', summary: 'Looks up <img src=x onerror=alert(1)> and [click](http://x) **now**\nsecond line', effect: 'read' } as never],
    removed: [],
    renamed: [],
    changed: [{ tool: 't', breaking: false, parameters: [], flags: [], description: { before: 'one\nline', after: `two\n\nlines <b>x</b> ${ESC}[31m` } } as never],
    tokens: [],
    selection: [],
    lint: { added: [], fixed: 0 },
    breaking: false,
  };

  it('escapes HTML and Markdown and collapses newlines in --format markdown', () => {
    const md = renderDiff(diff, undefined, true);
    expect(md).not.toMatch(/<img|<b>|<script>/);
    expect(md).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;');
    expect(md).not.toContain('[click](http://x)');
    expect(md).not.toContain('**now**');
    expect(md).toMatch(/second line/);
    expect(md).not.toMatch(/\*\*now\\?\*\*\nsecond/);
    for (const line of md.split('\n')) expect(line).not.toMatch(/^(second line|line|lines)/);
  });

  it('collapses description newlines and drops escapes in text', () => {
    const text = renderDiff(diff, undefined, false);
    expect(text).not.toContain(ESC);
    expect(text).toContain('description: one line → two lines <b>x</b>');
    expect(text).toContain('**now** second line');
  });
});
