import type { SearchMode } from '../../session/tool-session.js';
import type { BudgetReport } from '../../budget/budget-report.js';
import type { ProviderName } from '../../providers/types.js';
import { colorEnabled, palette } from '../color.js';
import type { FormatFlags } from '../../providers/format-options.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { createTable } from '../output/table.js';

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
    io.stdout.write(JSON.stringify(report, null, 2) + '\n');
    return report.budget.ok ? EXIT.OK : EXIT.FAILURE;
  }
  const c = palette(colorEnabled(io, io.stdout));
  const table = await createTable(['tool', 'tokens', 'share', 'state'], io);
  for (const row of report.tools) table.push([row.name, String(row.tokens), `${row.share_pct.toFixed(1)}%`, row.deferred ? c.yellow('deferred') : 'active']);
  io.stdout.write(`${table.toString()}\n`);
  const est = report.estimate ? ` (estimate: ${report.estimate_reasons.join('; ')})` : ' (exact)';
  io.stdout.write(`${provider} ${report.model}${est}, profile ${report.profile}; ${report.method}\n`);
  io.stdout.write(`  eager (every selected tool up front): ${report.totals.eager} tokens\n`);
  io.stdout.write(`  with deferral (active tools + meta-tools): ${report.totals.deferred} tokens, saving ${report.totals.saving_pct}%\n`);
  io.stdout.write(c.dim(`  both include ${report.totals.overhead} tokens of fixed tool overhead and the tools' system prompts (${report.totals.system_eager} eager, ${report.totals.system_deferred} deferred)\n`));
  if (exact) io.stdout.write(`  exact from the provider: eager ${exact.eager}, with deferral ${exact.deferred}\n`);
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
