import type { SearchMode } from '../../session/tool-session.js';
import type { BudgetReport } from '../../budget/budget-report.js';
import type { ProviderName } from '../../providers/types.js';
import { colorEnabled, palette } from '../color.js';
import type { FormatFlags } from '../../providers/format-options.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { createTable } from '../output/table.js';
import { jsonDocument } from '../output/json-document.js';

export interface BudgetCommandOptions extends FormatFlags {
  catalog?: string[];
  provider?: ProviderName;
  model?: string;
  profile?: string;
  force?: string[];
  deferAuto?: boolean;
  searchMode?: SearchMode;
  exact?: boolean;
  json?: boolean;
}

/**
 * `toolman budget`: each tool's definition cost for a provider, totals eager vs with deferral,
 * the saving, and the catalog's definitions budget; exits 1 when it is exceeded (for CI).
 */
export async function budgetCommand(options: BudgetCommandOptions, io: CliIO): Promise<ExitCode> {
  return withManager(io, options.catalog, async (manager) => {
    const provider = options.provider ?? 'openai';
    const report = await manager.budget(
      {
        provider,
        ...(options.model ? { model: options.model } : {}),
        ...(options.profile ? { profile: options.profile } : {}),
        force: options.force ?? [],
        deferAuto: options.deferAuto ?? false,
        ...(options.searchMode ? { searchMode: options.searchMode } : {}),
        format: manager.formatOptions(options),
      },
      { exact: options.exact ?? false },
    );
    return printBudget(report, provider, options, io);
  }, { requireValid: 'all' });
}

async function printBudget(report: BudgetReport, provider: ProviderName, options: BudgetCommandOptions, io: CliIO): Promise<ExitCode> {
  const exact = report.exact;
  if (options.json) {
    io.stdout.write(jsonDocument(report) + '\n');
    if (report.exact_unavailable) io.stderr.write(`${palette(colorEnabled(io, io.stderr)).yellow('toolman: warning:')} --exact: ${report.exact_unavailable}\n`);
    return report.budget.ok ? EXIT.OK : EXIT.FAILURE;
  }
  const c = palette(colorEnabled(io, io.stdout));
  const table = await createTable(['tool', 'tokens', 'share', 'state', 'count'], io);
  for (const row of report.tools) table.push([row.name, String(row.tokens), `${row.share_pct.toFixed(1)}%`, row.deferred ? c.yellow('deferred') : 'active', row.exact ? 'exact' : c.dim('estimate')]);
  io.stdout.write(`${table.toString()}\n`);
  io.stdout.write(`${provider} ${report.model}, profile ${report.profile}; ${report.method}\n`);
  for (const line of countLines(report)) io.stdout.write(`  ${line}\n`);
  io.stdout.write(`  eager (every selected tool up front): ${report.totals.eager} tokens\n`);
  io.stdout.write(`  with deferral (active tools + meta-tools): ${report.totals.deferred} tokens, saving ${report.totals.saving_pct}%\n`);
  io.stdout.write(c.dim(`  both include ${report.totals.overhead} tokens of fixed tool overhead and the tools' system prompts (${report.totals.system_eager} eager, ${report.totals.system_deferred} deferred)\n`));
  if (exact) io.stdout.write(`  exact from the provider (its own count of the same two requests): eager ${exact.eager}, with deferral ${exact.deferred}\n`);
  if (report.exact_unavailable) io.stdout.write(`  ${c.yellow('--exact:')} ${report.exact_unavailable}; every count above is toolman's\n`);
  const b = report.budget;
  if (b.definitions !== null) {
    io.stdout.write(b.ok ? `${c.green('✔')} within the definitions budget of ${b.definitions} tokens\n` : `${c.red('✖')} ${b.over_by} tokens over the definitions budget of ${b.definitions}\n`);
    if (!b.ok && b.over_after_deferral > 0) {
      // Deferring cannot fit: the search tool, forced and always-loaded tools and the prompts stay.
      io.stdout.write(`  deferral cannot fit it: with every tool that can be deferred behind tool_search it would still be ${b.over_after_deferral} tokens over (tool_search itself, forced and always-loaded tools and the tools' prompts stay); raise budget.definitions or offer fewer tools\n`);
    } else if (!b.ok && b.suggest_defer.length) io.stdout.write(`  defer these to fit (costliest first): ${b.suggest_defer.join(', ')}\n  or set \`defer: auto\` on the profile (or pass --defer-auto)\n`);
  } else io.stdout.write(c.dim('  no definitions budget set (budget.definitions in the catalog)\n'));
  if (b.per_result !== null || b.total_results !== null) io.stdout.write(c.dim(`  results: at most ${b.per_result ?? '-'} tokens each, ${b.total_results ?? '-'} per turn (applied by the executor)\n`));
  return b.ok ? EXIT.OK : EXIT.FAILURE;
}

/**
 * Which counts are exact and which are estimates, and why: each tool's count is exact only where a
 * rule measured against the provider's API covers its definition (docs/providers.md), so one
 * catalog can have both. Each reason is listed once, with the tools it makes estimates.
 */
function countLines(report: BudgetReport): string[] {
  const exact = report.tools.filter((row) => row.exact);
  const estimated = report.tools.filter((row) => !row.exact);
  if (estimated.length === 0) return [`counts: exact for every tool (${report.tools.length}): the rules measured against ${report.provider}'s API cover each definition`];
  const byReason = new Map<string, string[]>();
  for (const row of estimated) for (const why of row.estimate_reasons) byReason.set(why, [...(byReason.get(why) ?? []), row.name]);
  const names = (list: string[]) => (list.length === estimated.length && list.length > 1 ? 'every one' : list.length > 6 ? `${list.slice(0, 6).join(', ')} and ${list.length - 6} more` : list.join(', '));
  return [
    exact.length === 0 ? `counts: estimates for every tool (${report.tools.length}), because:` : `counts: exact for ${exact.length} of ${report.tools.length} tools (${exact.length > 6 ? `${exact.slice(0, 6).map((row) => row.name).join(', ')} and ${exact.length - 6} more` : exact.map((row) => row.name).join(', ')}); estimates for ${estimated.length}, because:`,
    ...[...byReason].map(([why, list]) => `  ${why}: ${names(list)}`),
  ];
}
