import type { SuiteReport } from '../../testing/suite-report.js';
import type { CliIO } from '../io.js';
import { colorEnabled, palette } from '../color.js';
import { createTable } from './table.js';
import { plainText } from './terminal-text.js';


const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);
const money = (x: number | null) => (x === null ? 'n/a' : x < 0.01 && x > 0 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);

/** The text report of `toolman test`: per case and provider, the reasons for failures, per provider, confusions. */
export async function printTestReport(report: SuiteReport, io: CliIO): Promise<void> {
  const c = palette(colorEnabled(io, io.stdout));
  // Text from a suite, a recording or a model: no control sequences, no bidi overrides.
  const safe = plainText;
  io.stdout.write(`${c.bold(safe(report.suite))} (${safe(report.file)})\n`);
  const cases = await createTable(['case', 'provider', 'passed', 'rate', 'needs', 'pass^k'], io);
  for (const row of report.cases) {
    const mark = row.ok ? c.green('ok') : c.red('FAIL');
    cases.push([safe(row.case), safe(row.provider), `${row.passes}/${row.runs} ${mark}`, pct(row.pass_rate), pct(row.min_pass_rate), row.pass_hat_k.toFixed(2)]);
  }
  io.stdout.write(cases.toString() + '\n');
  const failing = report.cases.filter((r) => r.failures.length);
  if (failing.length) {
    io.stdout.write('\nwhy runs failed:\n');
    for (const row of failing) {
      io.stdout.write(`  ${row.ok ? c.yellow('•') : c.red('✗')} ${safe(row.case)} [${safe(row.provider)}]\n`);
      for (const f of row.failures.slice(0, 8)) io.stdout.write(`      ${c.dim(`${f.runs}/${row.runs}`)} ${safe(f.expectation)}: ${safe(f.message)}\n`);
      if (row.failures.length > 8) io.stdout.write(`      ... ${row.failures.length - 8} more (see --json)\n`);
    }
  }
  const providers = await createTable(['provider', 'pass@1', '95% CI (Wilson)', 'pass^k', 'precision', 'recall', 'rounds', 'tokens in', 'tokens out', 'latency p50/p95', 'cost'], io);
  for (const p of report.providers) {
    providers.push([
      safe(p.provider), pct(p.pass_rate), `${pct(p.pass_rate_interval.low)}–${pct(p.pass_rate_interval.high)}`, p.pass_hat_k.toFixed(2), pct(p.precision), pct(p.recall), p.rounds_mean.toFixed(1),
      `${p.tokens_in}${p.tokens_reported ? '' : '*'}`, String(p.tokens_out), `${p.latency_ms.p50}/${p.latency_ms.p95} ms`, money(p.cost_usd),
    ]);
  }
  io.stdout.write('\n' + providers.toString() + '\n');
  if (report.providers.some((p) => !p.tokens_reported)) io.stdout.write(c.dim("* some runs' input tokens are toolman's estimate: the API reported none\n"));
  for (const p of report.providers) {
    const pairs = Object.entries(p.confusion).flatMap(([expected, got]) => Object.entries(got).map(([instead, n]) => ({ expected, instead, n }))).sort((a, b) => b.n - a.n);
    if (!pairs.length) continue;
    io.stdout.write(`\nconfusions [${safe(p.provider)}] (expected → called instead):\n`);
    for (const { expected, instead, n } of pairs.slice(0, 15)) io.stdout.write(`  ${safe(expected)} → ${safe(instead)}: ${n}\n`);
  }
}
