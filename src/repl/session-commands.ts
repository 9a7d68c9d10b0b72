import type { ContextCost, ContextPart } from '../conversation/context-cost.js';
import { CHAT_PROVIDERS, DEFAULT_MODELS, PROVIDER_LABELS } from '../manager/facts.js';
import type { McpServerState } from '../mcp/mcp-servers.js';
import type { ProviderName } from '../providers/types.js';
import { closest } from '../shared/did-you-mean.js';
import type { OutputLine } from './repl-state.js';
import type { CommandHost, Runner } from './slash-commands.js';
import { count } from './terminal-text.js';

/**
 * The slash commands about what the conversation talks to and what it costs: `/model`,
 * `/provider`, `/context`, `/mcp`. The conversation does the work (conversation/); these say
 * what it did in the user's words.
 */
export const SESSION_COMMANDS: Record<string, Runner> = {
  model: async (args, host) => {
    const { conversation } = host.context;
    if (!args) {
      host.output(
        [
          { text: `${conversation.provider} ${conversation.model}` },
          { text: `/model NAME goes on with another model of ${conversation.provider}; /provider NAME [MODEL] with another provider`, style: 'dim' },
        ],
        'model',
      );
      return;
    }
    const model = modelName(args);
    if (!model) return host.note('error', `"${args}" is not a model name`, 'a model name is one word, like gpt-4o or claude-sonnet-5');
    if (notWhileRunning(host, 'model')) return;
    await switched(host, { model });
  },

  provider: async (args, host) => {
    const { conversation } = host.context;
    if (!args) {
      host.output(
        CHAT_PROVIDERS.map((name) => ({ label: `  ${name === conversation.provider ? '*' : ' '} ${name}`, labelWidth: 22, text: `${PROVIDER_LABELS[name as ProviderName] ?? name} · default model ${DEFAULT_MODELS[name as ProviderName]}` })),
        'providers (/provider NAME [MODEL] switches)',
      );
      return;
    }
    const [name, modelArg, ...rest] = args.split(/\s+/);
    if (rest.length) return host.note('error', `/provider takes a provider and a model, not "${args}"`, 'like /provider anthropic, or /provider openai gpt-4o-mini');
    if (!(CHAT_PROVIDERS as readonly string[]).includes(name!)) {
      const suggestion = closest(name!, [...CHAT_PROVIDERS]);
      return host.note('error', `no provider "${name}"${suggestion ? `; did you mean ${suggestion}?` : ''}`, `providers: ${CHAT_PROVIDERS.join(', ')}`);
    }
    const model = modelArg === undefined ? undefined : modelName(modelArg);
    if (modelArg !== undefined && !model) return host.note('error', `"${modelArg}" is not a model name`);
    if (notWhileRunning(host, 'provider')) return;
    await switched(host, { provider: name as ProviderName, ...(model ? { model } : {}) });
  },

  context: async (_args, host) => {
    const cost = await host.context.conversation.contextCost();
    host.output(contextLines(cost), `context (${cost.provider} ${cost.model})`);
  },

  mcp: async (args, host) => {
    const { manager, conversation } = host.context;
    const [verb, name, ...rest] = args.split(/\s+/).filter(Boolean);
    if (verb !== undefined && verb !== 'restart') return host.note('error', `/mcp takes nothing, or restart NAME (not "${args}")`);
    if (verb === 'restart') {
      if (!name || rest.length) return host.note('error', 'restart which server? /mcp restart NAME');
      if (notWhileRunning(host, 'mcp restart')) return;
      host.note('dim', `restarting MCP server ${name}…`);
      const state = await manager.restartMcpServer(name);
      if (state.running === 'up') host.note('success', `MCP server ${name} is up again: ${state.tools} tool${state.tools === 1 ? '' : 's'}`);
      else host.note('error', `MCP server ${name} did not start again`, state.problem);
      return;
    }
    const states = await manager.mcpServerStates();
    if (states.length === 0) return host.note('dim', 'this catalog has no MCP servers (mcp_servers:)');
    // The tokens of each server's tools offered now, from the same count as /context.
    const cost = await conversation.contextCost().catch(() => undefined);
    const offered = new Map((cost?.parts ?? []).filter((p) => p.kind === 'server').map((p) => [p.name, p]));
    const lines: OutputLine[] = [];
    for (const state of states) {
      const part = offered.get(state.name);
      const tokens = part ? `${part.count} offered now, ${count(part.tokens)} tokens` : 'none offered now';
      const source = state.source === 'cache' ? `tools from the cache${state.ageMs !== undefined ? ` (${age(state.ageMs)} old)` : ''}` : state.source === 'live' ? 'tools listed by the server' : 'no tools';
      lines.push({ label: `  ${state.name}`, labelWidth: Math.min(24, Math.max(...states.map((s) => s.name.length)) + 4), text: `${RUNNING[state.running]} · ${state.tools} tool${state.tools === 1 ? '' : 's'} (${tokens}) · ${source}`, style: state.running === 'failed' ? 'warning' : state.running === 'up' ? 'success' : undefined });
      lines.push({ text: `      ${state.launch}`, style: 'dim' });
      // Why it failed: the message, then the end of its stderr, a line each.
      if (state.problem) for (const line of state.problem.split('\n').slice(0, 24)) lines.push({ text: `      ${line.trim() ? line : ''}`, style: 'warning' });
    }
    lines.push({ text: '/mcp restart NAME stops a server and starts it again', style: 'dim' });
    host.output(lines, 'MCP servers');
  },
};

const RUNNING: Record<McpServerState['running'], string> = { up: 'up', starting: 'starting', down: 'not started (starts on its first call)', failed: 'failed' };

/** The parts of a bar, by kind: a colour with colour, a character of its own without. */
const PART_STYLE: Record<ContextPart['kind'], { color: NonNullable<OutputLine['segments']>[number]['color']; char: string }> = {
  system: { color: 'magenta', char: '▓' },
  tool: { color: 'cyan', char: '█' },
  agent: { color: 'cyan', char: '█' },
  meta: { color: 'yellow', char: '▚' },
  server: { color: 'blue', char: '▞' },
  overhead: { color: 'gray', char: '░' },
  history: { color: 'green', char: '▒' },
};

const BAR = 50;

/** `/context`: a bar of the next request's parts, then each part with its tokens and share; deferred tools apart. */
export function contextLines(cost: ContextCost): OutputLine[] {
  const share = (tokens: number) => (cost.total ? Math.round((tokens / cost.total) * 100) : 0);
  // The bar by kind (every catalog tool together), each at least one cell when it costs anything.
  const kinds: { kind: ContextPart['kind']; tokens: number }[] = [];
  for (const part of cost.parts) {
    const kind = part.kind === 'agent' ? 'tool' : part.kind;
    const last = kinds.at(-1);
    if (last && last.kind === kind && kind !== 'server') last.tokens += part.tokens;
    else kinds.push({ kind, tokens: part.tokens });
  }
  const cells = kinds.map((k) => (k.tokens > 0 ? Math.max(1, Math.round((k.tokens / Math.max(1, cost.total)) * BAR)) : 0));
  const segments = kinds.map((k, i) => ({ text: PART_STYLE[k.kind].char.repeat(cells[i]!), color: PART_STYLE[k.kind].color })).filter((s) => s.text);
  const row = (part: ContextPart, indent = '  ') => {
    const style = PART_STYLE[part.kind];
    const label = part.kind === 'server' ? `MCP server ${part.name} (${part.count} tool${part.count === 1 ? '' : 's'})` : part.kind === 'history' ? `history (${part.count} message${part.count === 1 ? '' : 's'})` : part.kind === 'meta' ? `${part.name} (meta-tool)` : part.name;
    return { text: `${indent}${style.char} ${label.padEnd(40)} ${count(part.tokens).padStart(8)} ${String(share(part.tokens)).padStart(3)}%`, segments: [{ text: `${indent}${style.char}`, color: style.color }, { text: ` ${label.padEnd(40)} ${count(part.tokens).padStart(8)} ${String(share(part.tokens)).padStart(3)}%` }] };
  };
  const tools = cost.parts.filter((p) => p.kind === 'tool' || p.kind === 'agent' || p.kind === 'meta' || p.kind === 'server');
  const shown = tools.slice(0, 12);
  const lines: OutputLine[] = [
    { text: `the next request before your message: ${count(cost.total)} tokens${cost.estimate ? ` (estimate: ${cost.reasons.join('; ') || 'no exact rule for this request'})` : ''}`, style: 'dim' },
    { text: segments.map((s) => s.text).join(''), segments },
    ...cost.parts.filter((p) => p.kind === 'system').map((p) => row(p)),
    { text: `  tools offered (${tools.length})`, style: 'bold' },
    ...shown.map((p) => row(p, '    ')),
    ...(tools.length > shown.length ? [{ text: `      … and ${tools.length - shown.length} more, ${count(tools.slice(shown.length).reduce((a, p) => a + p.tokens, 0))} tokens (/budget lists each)`, style: 'dim' as const }] : []),
    ...cost.parts.filter((p) => p.kind === 'overhead' || p.kind === 'history').map((p) => row(p)),
  ];
  if (cost.deferred.tools) lines.push({ text: `deferred: ${cost.deferred.tools} tool${cost.deferred.tools === 1 ? '' : 's'} not sent (${count(cost.deferred.tokens)} tokens if they were); tool search finds them when needed`, style: 'dim' });
  return lines;
}

/** Switches, then says what happened: the new model, how much of the conversation came along, what did not. */
async function switched(host: CommandHost, target: { provider?: ProviderName; model?: string }): Promise<void> {
  const result = await host.switchModel(target);
  const { from, to, kept, notes } = result;
  const same = from.provider === to.provider && from.model === to.model;
  host.note('success', same ? `already ${to.provider} ${to.model}` : `now ${to.provider} ${to.model} (was ${from.provider} ${from.model}); the conversation goes on${kept ? ` with its ${kept} message${kept === 1 ? '' : 's'}` : ''}`);
  for (const note of notes) host.note('warning', note);
}

function notWhileRunning(host: CommandHost, command: string): boolean {
  if (!host.state.running) return false;
  host.note('warning', `/${command} waits until the turn ends (Ctrl-C cancels it)`);
  return true;
}

/** A model's name as typed: one word of printable characters. */
function modelName(text: string): string | undefined {
  const name = text.trim();
  return /^[\w.:/@+-]{1,200}$/.test(name) ? name : undefined;
}

/** An age in the largest unit that fits: "40 s", "12 min", "5 h", "3 days". */
function age(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  const days = Math.round(s / 86_400);
  return `${days} day${days === 1 ? '' : 's'}`;
}
