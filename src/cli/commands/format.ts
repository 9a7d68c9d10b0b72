import type { Diagnostic } from '../../catalog/diagnostic.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { SearchMode } from '../../session/tool-session.js';
import type { Severity } from '../../catalog/diagnostic-codes.js';
import { PROVIDER_LABELS, PROVIDERS, type FormatOptions, type FormatResult, type FormatWarning, type ProviderName } from '../../providers/types.js';
import { requestFragment } from '../../providers/format-tools.js';
import { colorEnabled, palette } from '../color.js';
import type { FormatFlags } from '../../providers/format-options.js';
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
    const formatting = manager.formatOptions(options);
    const session = await manager.session({ ...(options.profile ? { profile: options.profile } : {}), force: options.force ?? [], ...(options.searchMode ? { searchMode: options.searchMode } : {}), ...(options.provider ? { provider: options.provider } : {}), format: formatting });
    const providers = options.allProviders ? [...PROVIDERS] : [options.provider!];
    const results = await Promise.all(providers.map((provider) => (options.tool?.length ? manager.formatTools(provider, options.tool, formatting) : session.format(provider, round, formatting))));
    // What validate says about the tools sent (and about the profile's tool count) is said here too.
    const sent = new Set([...(options.tool?.length ? options.tool.map((name) => manager.tool(name)) : session.offered(round).tools).map((t) => t.name), ...results.flatMap((r) => Object.keys(r.sent))]);
    const profile = session.selection.profile.name;
    const findings = (await manager.validate())
      // Infos only where they describe what this payload does: strict mode's restated keywords.
      .filter((d) => d.severity !== 'info' || (formatting.strict && d.code === 'TM0401'))
      .filter((d) => (d.tool !== undefined && sent.has(d.tool)) || (!options.tool?.length && d.code === 'TM0405' && d.message.startsWith(`profile ${profile} sends`)))
      .filter((d) => providers.some((provider) => concerns(d, provider, formatting)))
      // Said once: what the formatter itself warns about (non-strict tools, tools not sent, tool counts) is not repeated.
      .filter((d) => !results.some((r) => concerns(d, r.provider, formatting) && r.warnings.some((w) => w.code === d.code && w.tool === d.tool)));
    const notes: FormatWarning[] = [];
    if (options.provider && !options.allProviders) notes.push(...unusedFlags(options, options.provider));
    return printFormat(results, findings, notes, options, io);
  }, { requireValid: 'all' });
}

/**
 * Whether a validate finding is about what `provider` is sent: OpenAI strict mode's findings
 * (TM0401, TM0402) only with --strict and for OpenAI; Gemini's schema and name findings (TM0403,
 * TM0404, TM0203) only for Gemini; TM0202's name rule is OpenAI's and Anthropic's; a tool-count
 * finding (TM0405) only for the provider whose limit it names. Everything else concerns every provider.
 */
function concerns(d: Diagnostic, provider: ProviderName, formatting: FormatOptions): boolean {
  const openai = provider === 'openai' || provider === 'openai-responses';
  switch (d.code) {
    case 'TM0401':
    case 'TM0402':
      return openai && formatting.strict === true;
    case 'TM0403':
    case 'TM0404':
      return provider === 'gemini' && !formatting.geminiJsonSchema;
    case 'TM0203':
      return provider === 'gemini';
    case 'TM0202':
      return provider !== 'gemini';
    case 'TM0405':
      return d.message.includes(`; ${PROVIDER_LABELS[provider]} takes at most`);
    default:
      return true;
  }
}

/** Flags given on the command line that change nothing for this provider, so they are not silently ignored. */
function unusedFlags(options: FormatCommandOptions, provider: ProviderName): FormatWarning[] {
  const notes: FormatWarning[] = [];
  if (options.cacheControl && provider !== 'anthropic') notes.push({ message: `--cache-control has no effect for ${provider}: cache_control breakpoints are Anthropic's (only --provider anthropic sends them)` });
  if (options.geminiJsonSchema && provider !== 'gemini') notes.push({ message: `--gemini-json-schema has no effect for ${provider}: it changes only what Gemini is sent` });
  if (options.strict && provider === 'gemini') notes.push({ message: '--strict has no effect for gemini: strict schemas are OpenAI\'s and Anthropic\'s' });
  return notes;
}

async function printFormat(results: FormatResult[], findings: Diagnostic[], notes: FormatWarning[], options: FormatCommandOptions, io: CliIO): Promise<ExitCode> {
  const located = findings.map((d) => ({ ...(d.tool ? { tool: d.tool } : {}), code: d.code, severity: d.severity, message: `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}` }));
  const c = palette(colorEnabled(io, io.stderr));
  const word: Record<Severity, string> = { error: c.red('error:'), warning: c.yellow('warning:'), info: c.cyan('info:') };
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
    for (const r of results) for (const warning of r.warnings) io.stderr.write(`${word.warning} [${r.provider}] ${warning.message}\n`);
    for (const finding of located) io.stderr.write(`${word[finding.severity]} ${finding.message}\n`);
    return EXIT.OK;
  }

  const result = results[0]!;
  io.stdout.write(JSON.stringify(options.json ? { ...result, warnings: [...notes, ...result.warnings, ...located] } : requestFragment(result), null, 2) + '\n');
  if (!options.json) {
    for (const warning of [...notes, ...result.warnings]) io.stderr.write(`${word.warning} ${warning.message}\n`);
    for (const finding of located) io.stderr.write(`${word[finding.severity]} ${finding.message}\n`);
    const user = [...result.prompts.user, ...result.prompts.reminders.map((r) => `(every turn) ${r}`)];
    if (user.length) io.stderr.write(`${c.dim('user-turn prompt contributions (added by the chat loop, not part of this fragment):')}\n${user.map((u) => `  ${u}`).join('\n')}\n`);
  }
  return EXIT.OK;
}
