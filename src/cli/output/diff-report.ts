import type { CatalogDiff } from '../../testing/catalog-diff.js';
import type { CompareOverall } from '../../testing/compare-runs.js';
import { plainText } from './terminal-text.js';

/** One line of text for a terminal: no control sequences or bidi overrides, newlines collapsed. */
const lineText = (s: string) => plainText(s).replace(/\s*[\r\n]+\s*/g, ' ');
/**
 * Text for a Markdown table cell or list item of a PR comment: from a catalog under review, so
 * HTML (`<img onerror=...>`) and Markdown (links, images, emphasis, headings) are escaped, not
 * rendered, and newlines collapsed.
 */
export const markdownText = (s: string): string =>
  lineText(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~]/g, '\\$&');

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);

/**
 * `toolman diff` as lines of text, or as Markdown for a pull-request comment (`markdown`): the
 * same sections in the same order, tables in Markdown.
 */
export function renderDiff(diff: CatalogDiff, passRates: CompareOverall[] | undefined, markdown: boolean): string {
  const out: string[] = [];
  const h = (title: string) => out.push(markdown ? `\n### ${title}\n` : `\n${title}:`);
  const item = (text: string) => out.push(markdown ? `- ${text}` : `  ${text}`);
  const code = (s: string) => (markdown ? `\`${lineText(s).replace(/`/g, "'").replace(/\|/g, '\\|')}\`` : lineText(s));
  const t = (s: string) => (markdown ? markdownText(s) : lineText(s));
  out.push(markdown ? `## toolman diff: ${t(diff.old.name)} → ${t(diff.new.name)}` : `${t(diff.old.name)} (${diff.old.tools} tools) → ${t(diff.new.name)} (${diff.new.tools} tools)`);
  const counts = `${diff.added.length} added, ${diff.removed.length} removed, ${diff.renamed.length} renamed, ${diff.changed.length} changed${diff.breaking ? ' — **breaking changes**' : ''}`;
  out.push(markdown ? `\n${counts}` : counts.replace(/\*\*/g, ''));
  if (diff.added.length) {
    h('Added');
    for (const a of diff.added) item(`${code(a.name)} (${a.effect}): ${t(a.summary)}`);
  }
  if (diff.removed.length) {
    h('Removed (breaking)');
    for (const r of diff.removed) item(`${code(r.name)} (${r.effect})`);
  }
  if (diff.renamed.length) {
    h('Renamed');
    for (const r of diff.renamed) item(`${code(r.from)} → ${code(r.to)} (${r.by === 'alias' ? 'the new tool lists the old name as an alias' : `similarity ${r.score}`})`);
  }
  if (diff.changed.length) {
    h('Changed');
    for (const c of diff.changed) {
      item(`${code(c.tool)}${c.was ? ` (was ${code(c.was)})` : ''}${c.breaking ? ' — breaking' : ''}`);
      const sub = (s: string) => out.push(markdown ? `  - ${s}` : `      ${s}`);
      // A rename breaks callers that use the old name (unless the new tool keeps it as an alias).
      // Why a rename breaks: what the model is offered (and a caller outside toolman uses) changed.
      if (c.was) sub(`breaking: renamed: models are offered ${code(c.tool)}, not ${code(c.was)}${diff.renamed.some((r) => r.to === c.tool && r.by === 'alias') ? ` (toolman still runs calls to ${code(c.was)}: an alias)` : ''}`);
      if (c.description) sub(`description: ${t(c.description.before.slice(0, 100))}${c.description.before.length > 100 ? '…' : ''} → ${t(c.description.after.slice(0, 100))}${c.description.after.length > 100 ? '…' : ''}`);
      for (const p of c.parameters) sub(`${p.breaking ? 'breaking: ' : ''}${code(p.path)} ${t(p.change)}`);
      for (const f of c.flags) sub(`${f.field}: ${t(JSON.stringify(f.before) ?? 'none')} → ${t(JSON.stringify(f.after) ?? 'none')}`);
    }
  }
  h('Definition tokens (default profile)');
  if (markdown) out.push('| provider | eager before | eager after | Δ | deferred before | deferred after | Δ |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const k of diff.tokens) {
    const row = [`${k.provider}${k.estimate ? ' (estimate)' : ''}`, k.before.eager, k.after.eager, signed(k.after.eager - k.before.eager), k.before.deferred, k.after.deferred, signed(k.after.deferred - k.before.deferred)];
    out.push(markdown ? `| ${row.join(' | ')} |` : `  ${String(row[0]).padEnd(22)} eager ${row[1]} → ${row[2]} (${row[3]}), deferred ${row[4]} → ${row[5]} (${row[6]})`);
  }
  const moved = diff.selection.filter((s) => s.status !== 'same');
  if (moved.length) {
    h('Selection per profile');
    for (const s of moved) {
      if (s.status !== 'changed') {
        item(`${code(s.profile)}: profile ${s.status}`);
        continue;
      }
      const parts = [
        s.active_added.length ? `now offered: ${t(s.active_added.join(', '))}` : '',
        s.active_removed.length ? `no longer offered up front: ${t(s.active_removed.join(', '))}` : '',
        s.deferred_added.length ? `now deferred: ${t(s.deferred_added.join(', '))}` : '',
        s.deferred_removed.length ? `no longer deferred: ${t(s.deferred_removed.join(', '))}` : '',
      ].filter(Boolean);
      item(`${code(s.profile)}: ${parts.join('; ')}`);
    }
  }
  h(`New lint findings (${diff.lint.added.length}; ${diff.lint.fixed} fixed)`);
  for (const d of diff.lint.added.slice(0, 30)) item(`${d.severity} ${d.code} ${t(d.message)}${markdown ? '' : ` (${d.file}:${d.line}:${d.column})`}`);
  if (diff.lint.added.length > 30) item(`… ${diff.lint.added.length - 30} more (toolman validate)`);
  if (passRates) {
    h('Pass rate (suites, old → new)');
    for (const o of passRates) {
      const ci = o.pass_rate.interval ? ` [${pct(o.pass_rate.interval.low)}, ${pct(o.pass_rate.interval.high)}]` : '';
      item(`${o.provider}: ${pct(o.pass_rate.a)} → ${pct(o.pass_rate.b)} (Δ ${o.pass_rate.delta === null ? '-' : signed(Math.round(o.pass_rate.delta * 100))} points, 95% CI${ci}, paired t over ${o.cases} cases): ${o.pass_rate.verdict ?? '-'}`);
    }
  }
  return out.join('\n') + '\n';
}
