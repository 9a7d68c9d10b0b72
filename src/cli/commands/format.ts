import type { Diagnostic } from '../../catalog/diagnostic.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import type { SearchMode } from '../../session/tool-session.js';
import type { Severity } from '../../catalog/diagnostic-codes.js';
import { PROVIDER_LABELS, PROVIDERS, requestFragment } from '../../manager/facts.js';
import type { FormatOptions, FormatResult, FormatWarning, ProviderName } from '../../providers/types.js';
import { colorEnabled, palette } from '../color.js';
import type { FormatFlags } from '../../providers/format-options.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { createTable } from '../output/table.js';
import { jsonDocument } from '../output/json-document.js';
import type { Tool } from '../../catalog/types.js';

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
    const offered = options.tool?.length ? options.tool.map((name) => manager.tool(name)) : session.offered(round).tools;
    // What validate says about the tools sent (and about the profile's tool count) is said here too.
    const sent = new Set([...offered.map((t) => t.name), ...results.flatMap((r) => Object.keys(r.sent))]);
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
    return printFormat(results, leftOut(results, offered), findings, notes, options, io);
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

/** A tool offered that a provider was not sent, and why. */
export interface NotSent {
  provider: ProviderName;
  tool: string;
  reason: string;
  /** A provider-native tool with no definition for this provider: meant for others, left out by design. */
  native_elsewhere: boolean;
}

/**
 * Every tool offered that a provider asked for was not sent, with the formatter's reason. One
 * rule for `--provider` and `--all-providers`: `format` exits 1 when a tool is left out that the
 * provider should have received (it cannot express the tool: a recursive schema for Gemini, say);
 * a provider-native tool with no definition for that provider is meant for others and is listed,
 * but is no failure.
 */
export function leftOut(results: readonly FormatResult[], offered: readonly Tool[]): NotSent[] {
  return results.flatMap((r) =>
    offered
      .filter((tool) => !(tool.name in r.sent))
      .map((tool) => {
        const nativeElsewhere = tool.native !== undefined && tool.native[r.provider] === undefined;
        const because = (r.changes[tool.name] ?? []).filter((c) => c.startsWith('not sent')).map((c) => c.replace(/^not sent: /, ''));
        const warned = r.warnings.find((w) => w.tool === tool.name && / not sent/.test(w.message));
        const reason = because.length ? because.join('; ') : nativeElsewhere ? `a provider-native tool for ${Object.keys(tool.native!).join(', ')} only` : (warned?.message.replace(new RegExp(`^${escapeRegExp(tool.name)}: `), '') ?? 'not sent');
        return { provider: r.provider, tool: tool.name, reason, native_elsewhere: nativeElsewhere };
      }),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function printFormat(results: FormatResult[], notSent: NotSent[], findings: Diagnostic[], notes: FormatWarning[], options: FormatCommandOptions, io: CliIO): Promise<ExitCode> {
  const failed = notSent.some((n) => !n.native_elsewhere);
  const exit = failed ? EXIT.FAILURE : EXIT.OK;
  const located = findings.map((d) => ({ ...(d.tool ? { tool: d.tool } : {}), code: d.code, severity: d.severity, message: `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}` }));
  const c = palette(colorEnabled(io, io.stderr));
  const word: Record<Severity, string> = { error: c.red('error:'), warning: c.yellow('warning:'), info: c.cyan('info:') };
  if (options.allProviders) {
    const names = [...new Set(results.flatMap((r) => [...Object.keys(r.sent), ...Object.keys(r.changes)]))];
    if (options.json) {
      io.stdout.write(jsonDocument({ tools: names.map((name) => ({ name, providers: Object.fromEntries(results.map((r) => [r.provider, { sent: name in r.sent, as: r.sent[name] ?? null, changes: r.changes[name] ?? [] }])) })), not_sent: notSent, warnings: [...results.flatMap((r) => r.warnings.map((w) => ({ provider: r.provider, ...w }))), ...located] }) + '\n');
      return exit;
    }
    const table = await createTable(['tool', ...PROVIDERS], io);
    const missing = new Map(notSent.map((n) => [`${n.provider}\u0000${n.tool}`, n]));
    for (const name of names) {
      table.push([name, ...results.map((r) => (!(name in r.sent) ? `NOT SENT${missing.get(`${r.provider}\u0000${name}`)?.native_elsewhere ? ' (native: another provider\'s tool)' : ''} ${(r.changes[name] ?? []).join('; ')}`.trim() : (r.changes[name] ?? []).join('\n') || 'as is'))]);
    }
    io.stdout.write(table.toString() + '\n');
    for (const r of results) for (const warning of r.warnings) io.stderr.write(`${word.warning} [${r.provider}] ${warning.message}\n`);
    for (const finding of located) io.stderr.write(`${word[finding.severity]} ${finding.message}\n`);
    if (failed) io.stderr.write(`${c.red('✖')} ${describeLeftOut(notSent.filter((n) => !n.native_elsewhere))}\n`);
    return exit;
  }

  const result = results[0]!;
  // Standard output stays the exact fragment the provider receives (what was left out cannot be
  // written into it without breaking it): --json carries the list, stderr and the exit code say it.
  io.stdout.write(jsonDocument(options.json ? { ...result, not_sent: notSent, warnings: [...notes, ...result.warnings, ...located] } : requestFragment(result)) + '\n');
  if (!options.json) {
    for (const warning of [...notes, ...result.warnings]) io.stderr.write(`${word.warning} ${warning.message}\n`);
    for (const finding of located) io.stderr.write(`${word[finding.severity]} ${finding.message}\n`);
    const user = [...result.prompts.user, ...result.prompts.reminders.map((r) => `(every turn) ${r}`)];
    if (user.length) io.stderr.write(`${c.dim('user-turn prompt contributions (added by the chat loop, not part of this fragment):')}\n${user.map((u) => `  ${u}`).join('\n')}\n`);
    if (Object.keys(result.sent).length === 0 && notSent.length > 0) io.stderr.write(`${c.red('✖')} nothing is sent to ${result.provider}: the fragment above has no tools (${notSent.map((n) => `${n.tool}: ${n.reason}`).join('; ')})\n`);
    else if (failed) io.stderr.write(`${c.red('✖')} ${describeLeftOut(notSent.filter((n) => !n.native_elsewhere))}\n`);
  }
  return exit;
}

/** "2 tools not sent to gemini: a (why), b (why)", per provider. */
function describeLeftOut(notSent: readonly NotSent[]): string {
  const byProvider = new Map<ProviderName, NotSent[]>();
  for (const n of notSent) byProvider.set(n.provider, [...(byProvider.get(n.provider) ?? []), n]);
  return [...byProvider].map(([provider, list]) => `${list.length} tool${list.length === 1 ? '' : 's'} not sent to ${provider}: ${list.map((n) => `${n.tool} (${n.reason})`).join(', ')}`).join('; ');
}
