import type { Diagnostic } from '../../catalog/diagnostic.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { SearchMode } from '../../session/tool-session.js';
import { PROVIDERS, type FormatResult, type ProviderName } from '../../providers/types.js';
import { colorEnabled, palette } from '../color.js';
import { formatOptions, type FormatFlags } from '../format-options.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { createTable } from '../output/table.js';

export interface FormatCommandOptions extends FormatFlags {
  catalog?: string[];
  provider?: ProviderName;
  allProviders?: boolean;
  profile?: string;
  force?: string[];
  tool?: string[];
  round?: string;
  searchMode?: SearchMode;
  json?: boolean;
}

/**
 * `toolman format --provider P`: the exact JSON fragment the provider receives (stdout), with
 * warnings on stderr; `--all-providers` shows side by side what each provider changes per tool.
 */
export async function formatCommand(options: FormatCommandOptions, io: CliIO): Promise<ExitCode> {
  const round = options.round === undefined ? 1 : Number(options.round);
  if (!Number.isInteger(round) || round < 1) throw new ToolmanError(ErrorCode.USAGE, `--round must be a whole number from 1, not ${JSON.stringify(options.round)}`);
  if (!options.allProviders && !options.provider) throw new ToolmanError(ErrorCode.USAGE, 'name a provider with --provider, or use --all-providers', { hint: `providers: ${PROVIDERS.join(', ')}` });
  return withManager(io, options.catalog, async (manager) => {
    const formatting = formatOptions(manager.catalog.format, options);
    const session = await manager.session({ ...(options.profile ? { profile: options.profile } : {}), force: options.force ?? [], ...(options.searchMode ? { searchMode: options.searchMode } : {}), ...(options.provider ? { provider: options.provider } : {}), format: formatting });
    const providers = options.allProviders ? [...PROVIDERS] : [options.provider!];
    const results = await Promise.all(providers.map((provider) => (options.tool?.length ? manager.formatTools(provider, options.tool, formatting) : session.format(provider, round, formatting))));
    // What validate says about the tools sent (and about the profile's tool count) is said here too.
    const sent = new Set([...(options.tool?.length ? options.tool.map((name) => manager.tool(name)) : session.offered(round).tools).map((t) => t.name), ...results.flatMap((r) => Object.keys(r.sent))]);
    const profile = session.selection.profile.name;
    const findings = (await manager.validate()).filter(
      (d) => d.severity !== 'info' || (formatting.strict && (d.code === 'TM0401' || d.code === 'TM0402')),
    ).filter((d) => (d.tool !== undefined && sent.has(d.tool)) || (d.code === 'TM0405' && d.message.startsWith(`profile ${profile} sends`)));
    return printFormat(results, findings, options, io);
  });
}

async function printFormat(results: FormatResult[], findings: Diagnostic[], options: FormatCommandOptions, io: CliIO): Promise<ExitCode> {
  const located = findings.map((d) => ({ ...(d.tool ? { tool: d.tool } : {}), code: d.code, message: `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}` }));
  if (options.allProviders) {
    const names = [...new Set(results.flatMap((r) => [...Object.keys(r.sent), ...Object.keys(r.changes)]))];
    if (options.json) {
      io.stdout.write(JSON.stringify({ tools: names.map((name) => ({ name, providers: Object.fromEntries(results.map((r) => [r.provider, { sent: name in r.sent, as: r.sent[name] ?? null, changes: r.changes[name] ?? [] }])) })), warnings: [...results.flatMap((r) => r.warnings.map((w) => ({ provider: r.provider, ...w }))), ...located] }, null, 2) + '\n');
      return EXIT.OK;
    }
    const table = await createTable(['tool', ...PROVIDERS], io);
    for (const name of names) {
      table.push([name, ...results.map((r) => (!(name in r.sent) ? `NOT SENT ${(r.changes[name] ?? []).join('; ')}`.trim() : (r.changes[name] ?? []).join('\n') || 'as is'))]);
    }
    io.stdout.write(table.toString() + '\n');
    const c = palette(colorEnabled(io, io.stderr));
    for (const warning of located) io.stderr.write(`${c.yellow('warning:')} ${warning.message}\n`);
    return EXIT.OK;
  }

  const result = results[0]!;
  io.stdout.write(JSON.stringify(options.json ? { ...result, warnings: [...result.warnings, ...located] } : result.payload, null, 2) + '\n');
  if (!options.json) {
    const c = palette(colorEnabled(io, io.stderr));
    for (const warning of [...result.warnings, ...located]) io.stderr.write(`${c.yellow('warning:')} ${warning.message}\n`);
    const user = [...result.prompts.user, ...result.prompts.reminders.map((r) => `(every turn) ${r}`)];
    if (user.length) io.stderr.write(`${c.dim('user-turn prompt contributions (added by the chat loop, not part of this fragment):')}\n${user.map((u) => `  ${u}`).join('\n')}\n`);
  }
  return EXIT.OK;
}
