import type { BaselineComparison } from '../../testing/baseline.js';
import type { Comparison, MetricDelta } from '../../testing/compare-runs.js';
import type { TestResults } from '../../testing/results-document.js';
import type { FlakyCase } from '../../testing/run-history.js';
import type { RunResult } from '../../testing/run-suite.js';
import { wilson } from '../../testing/statistics.js';
import type { CaseRow, SuiteReport } from '../../testing/suite-report.js';
import type { VariantUsage } from '../../testing/variant-usage.js';

/**
 * `toolman test --html FILE`: one self-contained page (inline CSS and SVG, no script, no request:
 * its Content-Security-Policy forbids any). Everything from a suite, a model, a tool or a results
 * file is untrusted and goes through `esc` (the only way text enters the page), so a case named
 * `<script>` is shown as text, never run.
 */

/** Characters HTML cannot carry usefully (controls but tab and newline, lone surrogates): replaced. */
const UNSAFE = /[^\u0009\u000A\u0020-\u007E\u00A0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function esc(text: unknown): string {
  return String(text).replace(UNSAFE, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(0)}%`);
const money = (x: number | null) => (x === null ? 'n/a' : `$${x < 0.01 && x > 0 ? x.toFixed(5) : x.toFixed(4)}`);
const signedPts = (x: number | null) => (x === null ? '–' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}`);

const STYLE = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bar:#0969da}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums}.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}.warn{color:var(--warn);font-weight:600}.muted{color:var(--muted)}
.badge{display:inline-block;border-radius:12px;padding:2px 10px;color:#fff;font-weight:600}.badge.ok{background:var(--ok);color:#fff}.badge.bad{background:var(--bad);color:#fff}.badge.warn{background:var(--warn);color:#fff}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:#f6f8fa;padding:6px 8px;border-radius:6px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
details{margin:4px 0 8px}summary{cursor:pointer}.heat{width:auto}.heat td{text-align:center;min-width:64px}.legend{font-size:12px;color:var(--muted)}
`;

/** A pass rate as a bar: the rate filled, its Wilson 95% interval as a whisker, the case's bar as a tick. */
function rateBar(passes: number, runs: number, needed: number | null): string {
  const w = 220;
  const x = (v: number) => (v * w).toFixed(1);
  const ci = wilson(passes, runs);
  const rate = runs ? passes / runs : 0;
  const colour = needed === null || rate >= needed - 1e-9 ? '#1a7f37' : '#cf222e';
  return `<svg width="${w + 2}" height="16" role="img" aria-label="pass rate ${pct(rate)}, 95% interval ${pct(ci.low)} to ${pct(ci.high)}"><rect x="1" y="3" width="${w}" height="10" fill="#eaeef2"/><rect x="1" y="3" width="${x(rate)}" height="10" fill="${colour}" opacity="0.8"/><line x1="${x(ci.low)}" x2="${x(ci.high)}" y1="8" y2="8" stroke="#1f2328" stroke-width="1.5"/><line x1="${x(ci.low)}" x2="${x(ci.low)}" y1="4" y2="12" stroke="#1f2328"/><line x1="${x(ci.high)}" x2="${x(ci.high)}" y1="4" y2="12" stroke="#1f2328"/>${needed === null ? '' : `<line x1="${x(needed)}" x2="${x(needed)}" y1="0" y2="16" stroke="#9a6700" stroke-width="2" stroke-dasharray="2,1"/>`}</svg>`;
}

/** A difference in points with its interval, on a −100..+100 scale around a zero line. */
function deltaBar(d: MetricDelta): string {
  const w = 200;
  const x = (v: number) => (((Math.max(-1, Math.min(1, v)) + 1) / 2) * w).toFixed(1);
  const colour = d.verdict === 'better' ? '#1a7f37' : d.verdict === 'worse' ? '#cf222e' : '#57606a';
  const interval = d.interval ? `<line x1="${x(d.interval.low)}" x2="${x(d.interval.high)}" y1="8" y2="8" stroke="${colour}" stroke-width="3"/>` : '';
  const point = d.delta === null ? '' : `<circle cx="${x(d.delta)}" cy="8" r="3.5" fill="${colour}"/>`;
  return `<svg width="${w}" height="16" role="img" aria-label="difference ${signedPts(d.delta)} points"><line x1="${w / 2}" x2="${w / 2}" y1="0" y2="16" stroke="#8c959f"/>${interval}${point}</svg>`;
}

function verdictCell(d: MetricDelta): string {
  const cls = d.verdict === 'better' ? 'ok' : d.verdict === 'worse' ? 'bad' : 'muted';
  return `<span class="${cls}">${esc(d.verdict ?? '–')}</span>`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="toolman">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export interface HtmlExtras {
  ok: boolean;
  interrupted: boolean;
  flaky: readonly FlakyCase[];
  quarantined: boolean;
  baseline?: BaselineComparison;
}

/** The report of a run (or of merged shards). */
export function testReportHtml(results: TestResults, extras: HtmlExtras): string {
  const runs = results.suites.flatMap((s) => s.runs.filter((r) => r.error === null));
  const passed = runs.filter((r) => r.passed).length;
  const notRun = results.suites.reduce((n, s) => n + s.report.not_run.runs, 0);
  const status = extras.interrupted ? ['warn', 'interrupted'] : notRun ? ['bad', 'incomplete'] : extras.ok ? ['ok', 'passed'] : ['bad', 'failed'];
  const parts: string[] = [];
  parts.push(`<h1>toolman test <span class="badge ${status[0]}">${status[1]}</span></h1>`);
  parts.push(`<p>${passed}/${runs.length} runs passed (${pct(runs.length ? passed / runs.length : 0)}) over ${results.suites.length} suite${results.suites.length === 1 ? '' : 's'}${notRun ? `; <span class="bad">${notRun} could not run</span>` : ''}${results.plan.min_pass_rate ? `; --min-pass-rate ${results.plan.min_pass_rate}` : ''}${results.plan.sequential ? `; sequential test, alpha ${results.plan.sequential.alpha}` : ''}.</p>`);
  for (const suite of results.suites) parts.push(suiteSection(suite.report, suite.runs));
  if (extras.flaky.length) {
    parts.push(`<h2>Flaky cases</h2><p class="muted">The verdict flipped within the latest runs (oldest first)${extras.quarantined ? '; quarantined: left out of the verdict' : ''}.</p><table><tr><th>suite</th><th>case</th><th>provider</th><th>verdicts</th><th>flips</th></tr>`);
    for (const f of extras.flaky) parts.push(`<tr><td>${esc(f.suite)}</td><td>${esc(f.case)}</td><td>${esc(f.provider)}</td><td>${f.verdicts.map((v) => (v ? '<span class="ok">pass</span>' : '<span class="bad">fail</span>')).join(' ')}</td><td class="n">${f.flips}</td></tr>`);
    parts.push('</table>');
  }
  if (extras.baseline) parts.push(baselineSection(extras.baseline));
  return page(`toolman test: ${results.suites.map((s) => s.plan.name).join(', ')}`, parts.join('\n'));
}

function suiteSection(report: SuiteReport, runs: readonly RunResult[]): string {
  const out: string[] = [`<h2>${esc(report.suite)}</h2><p class="muted">${esc(report.file)}</p>`];
  out.push('<h3>Cases</h3><table><tr><th>case</th><th>provider</th><th>passed</th><th>pass rate, 95% interval (Wilson), bar</th><th>rate</th><th>needs</th><th>verdict</th></tr>');
  for (const row of report.cases) {
    const seq = row.sequential ? `<br><span class="muted">${row.runs} of ${row.sequential.planned} runs (${esc(row.sequential.rule ?? 'unsettled')})</span>` : '';
    out.push(`<tr><td>${esc(row.case)}</td><td>${esc(row.provider)}</td><td class="n">${row.passes}/${row.runs}</td><td>${rateBar(row.passes, row.runs, row.min_pass_rate)}</td><td class="n">${pct(row.pass_rate)}</td><td class="n">${pct(row.min_pass_rate)}</td><td>${row.ok ? '<span class="ok">ok</span>' : '<span class="bad">FAIL</span>'}${seq}</td></tr>`);
  }
  out.push('</table>');
  if (report.sequential) {
    const s = report.sequential;
    out.push(`<p>Sequential test: ${s.runs_made} of ${s.runs_planned} runs made, <strong>${s.runs_saved} saved</strong>; ${s.calls_made} model calls made, about ${s.calls_saved_estimate} saved (estimated from each case's rounds per run).</p>`);
  }
  out.push('<h3>Per provider: tokens and cost</h3><table><tr><th>provider</th><th>pass@1</th><th>95% CI (Wilson)</th><th>pass^k</th><th>precision</th><th>recall</th><th>rounds</th><th>tokens in</th><th>tokens out</th><th>latency p50/p95</th><th>cost</th></tr>');
  for (const p of report.providers) {
    out.push(`<tr><td>${esc(p.provider)}</td><td class="n">${pct(p.pass_rate)}</td><td class="n">${pct(p.pass_rate_interval.low)}–${pct(p.pass_rate_interval.high)}</td><td class="n">${p.pass_hat_k.toFixed(2)}</td><td class="n">${pct(p.precision)}</td><td class="n">${pct(p.recall)}</td><td class="n">${p.rounds_mean.toFixed(1)}</td><td class="n">${p.tokens_in}${p.tokens_reported ? '' : '*'}</td><td class="n">${p.tokens_out}</td><td class="n">${p.latency_ms.p50}/${p.latency_ms.p95} ms</td><td class="n">${money(p.cost_usd)}</td></tr>`);
  }
  out.push('</table>');
  for (const p of report.providers) out.push(heatMap(p.provider, p.confusion));
  const failing = report.cases.filter((r) => r.failures.length);
  if (failing.length) {
    out.push('<h3>Why runs failed</h3>');
    for (const row of failing) out.push(failureBlock(row, runs.filter((r) => r.case === row.case && r.provider === row.provider && r.error === null && !r.passed)));
  }
  if (report.not_run.runs) {
    out.push(`<h3 class="bad">Could not run: ${report.not_run.runs} runs</h3><ul>`);
    for (const { reason, runs: which } of report.not_run.reasons) out.push(`<li>${esc(which.slice(0, 3).join(', '))}${which.length > 3 ? ` and ${which.length - 3} more` : ''}: ${esc(reason)}</li>`);
    out.push('</ul>');
  }
  return out.join('\n');
}

/** The confusion matrix (expected tool → the tool called instead) as a heat map. */
function heatMap(provider: string, confusion: Record<string, Record<string, number>>): string {
  const expected = Object.keys(confusion);
  if (!expected.length) return '';
  const called = [...new Set(expected.flatMap((e) => Object.keys(confusion[e]!)))];
  const max = Math.max(...expected.flatMap((e) => Object.values(confusion[e]!)));
  const rows = expected.map((e) => `<tr><th>${esc(e)}</th>${called.map((c) => {
    const n = confusion[e]![c] ?? 0;
    return `<td style="background:rgba(207,34,46,${n ? (0.15 + (0.75 * n) / max).toFixed(2) : 0})">${n || ''}</td>`;
  }).join('')}</tr>`);
  return `<h3>Confusions [${esc(provider)}]</h3><p class="legend">rows: the tool expected; columns: the tool called in its place ((none): nothing was); cells: runs</p><table class="heat"><tr><th>expected ↓ / called →</th>${called.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>${rows.join('')}</table>`;
}

const MAX_RUNS_SHOWN = 5;
const MAX_TEXT = 4000;
const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length - MAX_TEXT} more characters)` : text);

function failureBlock(row: CaseRow, failed: readonly RunResult[]): string {
  const reasons = row.failures.map((f) => `<li><span class="muted">${f.runs}/${row.runs}</span> <code>${esc(f.expectation)}</code>: ${esc(f.message)}</li>`).join('');
  const shown = failed.slice(0, MAX_RUNS_SHOWN).map((run, i) => {
    const calls = run.calls.length
      ? run.calls.map((c) => `<li><code>${esc(c.name)}</code>${c.meta ? ' <span class="muted">(meta-tool)</span>' : ''} ${c.ok ? '<span class="ok">ok</span>' : `<span class="bad">${esc(c.error ?? 'failed')}</span>`}<pre>${esc(clip(JSON.stringify(c.arguments ?? null, null, 1) ?? 'null'))}</pre></li>`).join('')
      : '<li class="muted">no tool called</li>';
    return `<details${i === 0 ? ' open' : ''}><summary>run #${run.repeat}: ${run.rounds} round${run.rounds === 1 ? '' : 's'}, stop ${esc(run.stop)}</summary><p>The model's calls:</p><ol>${calls}</ol><p>Its answer:</p><pre>${esc(clip(run.answer)) || '<span class="muted">(none)</span>'}</pre></details>`;
  });
  const more = failed.length > MAX_RUNS_SHOWN ? `<p class="muted">… ${failed.length - MAX_RUNS_SHOWN} more failed runs (see --json)</p>` : '';
  return `<div><h4>${row.ok ? '<span class="warn">•</span>' : '<span class="bad">✗</span>'} ${esc(row.case)} [${esc(row.provider)}]</h4><ul>${reasons}</ul>${shown.join('')}${more}</div>`;
}

function baselineSection(b: BaselineComparison): string {
  const out = [`<h2>Against the baseline</h2><p>${b.regressions.length ? `<span class="bad">${b.regressions.length} regression${b.regressions.length === 1 ? '' : 's'}</span>` : '<span class="ok">within noise</span>'}: a regression is a 95% interval of the change that excludes 0, by the rules of --compare.</p>`];
  out.push('<table><tr><th>case</th><th>provider</th><th>pass before</th><th>pass now</th><th>Δ points (95% CI)</th><th></th><th>verdict</th><th>tokens/run</th><th>verdict</th></tr>');
  for (const s of b.suites) {
    for (const r of s.comparison.rows) out.push(`<tr><td>${esc(r.case)}</td><td>${esc(r.provider)}</td><td class="n">${pct(r.pass_rate.a)}</td><td class="n">${pct(r.pass_rate.b)}</td><td class="n">${signedPts(r.pass_rate.delta)}${r.pass_rate.interval ? ` [${signedPts(r.pass_rate.interval.low)}, ${signedPts(r.pass_rate.interval.high)}]` : ''}</td><td>${deltaBar(r.pass_rate)}</td><td>${verdictCell(r.pass_rate)}</td><td class="n">${r.tokens.a === null ? '–' : Math.round(r.tokens.a)} → ${r.tokens.b === null ? '–' : Math.round(r.tokens.b)}</td><td>${verdictCell(r.tokens)}</td></tr>`);
  }
  out.push('</table>');
  if (b.regressions.length) {
    out.push('<h3>Regressions</h3><ul>');
    for (const r of b.regressions) out.push(`<li class="bad">${r.case === null ? 'overall' : esc(r.case)} [${esc(r.provider)}]: ${esc(r.metric.replace('_', ' '))}${r.delta.interval ? ` (${esc(r.delta.interval.method)})` : ''}</li>`);
    out.push('</ul>');
  }
  return out.join('\n');
}

/** The report of `--compare A B C...`: every variant against the first, per case and overall, and each variant's usage. */
export function compareReportHtml(variants: readonly VariantUsage[], comparisons: readonly Comparison[]): string {
  const out: string[] = ['<h1>toolman test --compare</h1><table><tr><th>variant</th><th>what</th><th>runs</th><th>cached share of input (provider-reported)</th><th>cost per run</th></tr>'];
  for (const v of variants) {
    for (const [i, u] of v.providers.entries()) out.push(`<tr><td>${i ? '' : esc(v.label)}</td><td>${i ? '' : esc(v.spec)} <span class="muted">${esc(u.provider)}</span></td><td class="n">${u.runs}</td><td class="n">${u.cached_share === null ? 'n/a' : pct(u.cached_share)}</td><td class="n">${money(u.cost_per_run)}</td></tr>`);
  }
  out.push('</table>');
  for (const c of comparisons) {
    out.push(`<h2>${esc(c.b.label)} (${esc(c.b.spec)}) against ${esc(c.a.label)} (${esc(c.a.spec)})</h2>`);
    out.push(`<table><tr><th>provider</th><th>metric</th><th>${esc(c.a.label)}</th><th>${esc(c.b.label)}</th><th>Δ (95% CI, paired t over cases)</th><th></th><th>verdict</th></tr>`);
    for (const o of c.overall) {
      for (const [name, d] of [['pass rate', o.pass_rate], ['precision', o.precision], ['recall', o.recall]] as const) out.push(`<tr><td>${esc(o.provider)}</td><td>${name}</td><td class="n">${pct(d.a)}</td><td class="n">${pct(d.b)}</td><td class="n">${signedPts(d.delta)}${d.interval ? ` [${signedPts(d.interval.low)}, ${signedPts(d.interval.high)}]` : ''}</td><td>${deltaBar(d)}</td><td>${verdictCell(d)}</td></tr>`);
      out.push(`<tr><td>${esc(o.provider)}</td><td>tokens/run</td><td class="n">${o.tokens.a === null ? '–' : Math.round(o.tokens.a)}</td><td class="n">${o.tokens.b === null ? '–' : Math.round(o.tokens.b)}</td><td class="n">${o.tokens.delta === null ? '–' : Math.round(o.tokens.delta)}</td><td></td><td>${verdictCell(o.tokens)}</td></tr>`);
    }
    out.push('</table>');
    out.push(`<table><tr><th>case</th><th>provider</th><th>pass ${esc(c.a.label)}</th><th>pass ${esc(c.b.label)}</th><th>Δ points (Newcombe 95% CI)</th><th></th><th>verdict</th><th>tokens ${esc(c.a.label)} → ${esc(c.b.label)}</th><th>verdict</th></tr>`);
    for (const r of c.rows) out.push(`<tr><td>${esc(r.case)}</td><td>${esc(r.provider)}</td><td class="n">${pct(r.pass_rate.a)}</td><td class="n">${pct(r.pass_rate.b)}</td><td class="n">${signedPts(r.pass_rate.delta)}${r.pass_rate.interval ? ` [${signedPts(r.pass_rate.interval.low)}, ${signedPts(r.pass_rate.interval.high)}]` : ''}</td><td>${deltaBar(r.pass_rate)}</td><td>${verdictCell(r.pass_rate)}</td><td class="n">${r.tokens.a === null ? '–' : Math.round(r.tokens.a)} → ${r.tokens.b === null ? '–' : Math.round(r.tokens.b)}</td><td>${verdictCell(r.tokens)}</td></tr>`);
    out.push('</table>');
  }
  return page('toolman test --compare', out.join('\n'));
}
