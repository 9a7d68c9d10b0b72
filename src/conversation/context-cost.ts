import type { Tool } from '../catalog/types.js';
import type { ChatMessage, ModelClient, ModelRequest } from '../providers/model-client.js';
import type { FormatOptions, FormatResult, ProviderName } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';

/** One part of the next request: its name, what it is, and its tokens. */
export interface ContextPart {
  kind: 'system' | 'tool' | 'server' | 'agent' | 'meta' | 'overhead' | 'history';
  /** A tool's or a server's name; "system", "tool-use overhead", "history". */
  name: string;
  tokens: number;
  /** For a server: how many of its tools are offered. For history: how many messages. */
  count?: number;
}

/** What the next request of a conversation costs before the user's next message, by part (`/context`). */
export interface ContextCost {
  provider: ProviderName;
  model: string;
  /** The parts that are sent, largest first within tools; they add up to `total`. */
  parts: ContextPart[];
  total: number;
  /** Deferred tools are not sent: how many, and what they would cost if all were. */
  deferred: { tools: number; tokens: number };
  /** Whether the counts are estimates (`reasons` say why), as `toolman tokens` says for the same body. */
  estimate: boolean;
  reasons: string[];
}

/** What counting needs of a conversation (Conversation.contextCost gives it). */
export interface ContextInput {
  client: ModelClient;
  session: ToolSession;
  format: FormatOptions;
  /** The user's system prompt (the tools' contributions follow it). */
  system: string | undefined;
  messages: readonly ChatMessage[];
  /** Formats tools on their own (the deferred ones, as if they were offered). */
  formatTools(provider: ProviderName, names: readonly string[], options: FormatOptions): Promise<FormatResult>;
}

/**
 * Counts the next request as the loop would send it (round one of the next turn, before the new
 * message) with toolman's tokenizers, in parts that add up: the request with nothing in it is the
 * tool-use overhead's and the API's share, the system prompt is what adding it costs, the tools
 * are what adding them costs (split by tool as `budget` counts them, what is left the overhead),
 * and the history is what the messages add. The tokenizers load here, not before.
 */
export async function contextCost(input: ContextInput): Promise<ContextCost> {
  const { countDefinitions, countRequest } = await Promise.all([import('../tokens/count-payload.js'), import('../tokens/count-request.js')]).then(([a, b]) => ({ ...a, ...b }));
  const { client, session, format } = input;
  const provider = client.provider;
  const model = client.model;
  const fragment = session.format(provider, 1, format);
  const system = [input.system, ...fragment.prompts.system].filter((s) => s && s.trim()).join('\n\n');
  const reasons = new Set<string>();
  let estimate = false;
  const count = async (request: ModelRequest) => {
    const { stream: _stream, stream_options: _options, ...body } = client.countBody?.(request) ?? client.body(request);
    const counted = await countRequest(provider, body, model);
    if (counted.estimate) estimate = true;
    for (const reason of counted.reasons) reasons.add(reason);
    return counted.tokens;
  };
  const none = { ...fragment, payload: {} };
  const base: ModelRequest = { model, system: '', messages: [], tools: none, stream: false, maxTokens: 4096 };
  const empty = await count(base);
  const withSystem = await count({ ...base, system });
  const withTools = await count({ ...base, system, tools: fragment });
  const whole = await count({ ...base, system, tools: fragment, messages: input.messages });

  const definitions = await countDefinitions(fragment, model);
  const byName = new Map<string, Tool>([...session.catalog.tools, ...session.metaTools()].map((t) => [t.name, t]));
  const tools: ContextPart[] = [];
  const servers = new Map<string, ContextPart>();
  for (const [name, tokens] of Object.entries(definitions.tools)) {
    const source = byName.get(name)?.source;
    if (source?.kind === 'mcp') {
      const server = servers.get(source.server) ?? { kind: 'server' as const, name: source.server, tokens: 0, count: 0 };
      server.tokens += tokens;
      server.count! += 1;
      servers.set(source.server, server);
    } else tools.push({ kind: source?.kind === 'meta' ? 'meta' : source?.kind === 'agent' ? 'agent' : 'tool', name, tokens });
  }
  const toolParts = [...tools, ...servers.values()].sort((a, b) => b.tokens - a.tokens);
  const toolsTotal = Math.max(0, withTools - withSystem);
  const split = toolParts.reduce((sum, p) => sum + p.tokens, 0);
  // What adding the tools cost beyond their definitions (the tool-use prompt, the wrapping): the overhead.
  const overhead = empty + Math.max(0, toolsTotal - split);
  const parts: ContextPart[] = [
    { kind: 'system', name: 'system prompt', tokens: Math.max(0, withSystem - empty) },
    ...toolParts,
    { kind: 'overhead', name: 'tool-use overhead and request framing', tokens: overhead },
    { kind: 'history', name: 'history', tokens: Math.max(0, whole - withTools), count: input.messages.length },
  ];
  const total = parts.reduce((sum, p) => sum + p.tokens, 0);

  const deferredNames = session.selection.deferred.filter((t) => !session.activated.includes(t.name)).map((t) => t.name);
  let deferredTokens = 0;
  if (deferredNames.length) {
    const loaded = await countDefinitions(await input.formatTools(provider, deferredNames, { ...format, nativeToolSearch: undefined }), model);
    deferredTokens = Object.values(loaded.tools).reduce((a, b) => a + b, 0);
  }
  return { provider, model, parts, total, deferred: { tools: deferredNames.length, tokens: deferredTokens }, estimate, reasons: [...reasons] };
}
