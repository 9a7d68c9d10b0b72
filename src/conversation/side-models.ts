import type { SideUsage } from '../loop/loop-events.js';
import { credentialsFor } from '../providers/credentials.js';
import type { ClientConnection, ModelClient, ModelRequest, ModelUsage } from '../providers/model-client.js';
import { CHAT_PROVIDERS, createModelClient } from '../providers/model-clients.js';
import type { FormatResult, ProviderName } from '../providers/types.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';

/** A model a side call goes to: the summariser (`budget.summarize`), a rubric's grader. */
export interface SideTarget {
  provider: string;
  model: string;
  baseUrl?: string | undefined;
}

/** One side call: an instruction, one message, and how long the answer may be. */
export interface SideRequest {
  system: string;
  text: string;
  maxTokens: number;
}

/**
 * How side calls reach their models. `live`: each provider's key from the environment (a
 * secret as it is read), through `fetch` when the conversation records (so the recording holds
 * them, and its replay answers them, matched by content like any model call). `replay`: answered
 * from the recording through the conversation's replay fetch: no network, no key. `refused`:
 * no side call is made, and `why` says so (a catalog the user did not name must not send their
 * key to a base URL it chose).
 */
export type SideConnection = { mode: 'live'; fetch?: typeof fetch | undefined } | { mode: 'replay'; fetch: typeof fetch } | { mode: 'refused'; why: string };

/** How long one side call may take, retries included: a summary or a verdict is not worth a stalled turn. */
export const SIDE_CALL_TIMEOUT_MS = 60_000;

/** The conversation's own requests' part of a turn's (or a run's) usage: the totals without the side calls. */
export function ownUsage(usage: { input: number; output: number; cached: number; side: readonly SideUsage[] }): { input: number; output: number; cached: number } {
  const side = (key: 'input' | 'output' | 'cached') => usage.side.reduce((n, s) => n + s[key], 0);
  return { input: usage.input - side('input'), output: usage.output - side('output'), cached: usage.cached - side('cached') };
}

/** The request fragment of a call with no tools: nothing offered, nothing to choose. */
function noTools(provider: ProviderName): FormatResult {
  return { provider, payload: {}, systemPayload: {}, toolChoice: { type: 'auto' }, warnings: [], changes: {}, sent: {}, prompts: { system: [], user: [], reminders: [] } };
}

/**
 * Model calls a conversation makes besides its own: summaries of long results and rubric
 * grades. They go through the conversation's connection (recorded with it, replayed from it), on
 * the same clients the loop uses (retries announced nowhere: a side call's failure is a value its
 * caller falls back from). Clients are made on first use and kept, per provider, model and base
 * URL.
 */
export class SideModels {
  private readonly clients = new Map<string, Promise<ModelClient>>();
  /** The usage of the calls answered since `takeUsage` was last asked, per provider and model. */
  private readonly used = new Map<string, SideUsage>();

  constructor(
    private readonly connection: SideConnection,
    private readonly env: Record<string, string | undefined>,
    private readonly secrets: SecretSet,
    /** What named the catalog, when the user did not (a recording, a suite): its base URLs are then not used. */
    private readonly namedBy?: string | undefined,
  ) {}

  /** The text of the model's answer. Throws (a typed error, a model call's error) when it cannot be had. */
  async complete(target: SideTarget, request: SideRequest, signal: AbortSignal): Promise<string> {
    const client = await this.client(target);
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(SIDE_CALL_TIMEOUT_MS)]);
    const body: ModelRequest = { model: target.model, system: request.system, messages: [{ role: 'user', text: request.text }], tools: noTools(client.provider), stream: false, maxTokens: request.maxTokens };
    const reply = await client.send(body, { signal: bounded });
    this.count(client.provider, target.model, reply.usage);
    return reply.text;
  }

  /**
   * What the side calls answered since the last time cost, per provider and model (each priced
   * at its own model's price); the tally starts again. The loop asks at the end of each turn, so
   * the turn's summary carries them.
   */
  takeUsage(): SideUsage[] {
    const list = [...this.used.values()];
    this.used.clear();
    return list;
  }

  /** Counts model calls made elsewhere for this conversation (a local sub-agent's loop) with the side calls. */
  add(usage: readonly SideUsage[]): void {
    for (const u of usage) {
      const entry = this.entry(u.provider, u.model);
      entry.calls += u.calls;
      entry.input += u.input;
      entry.output += u.output;
      entry.cached += u.cached;
      entry.unreported += u.unreported;
    }
  }

  private entry(provider: string, model: string): SideUsage {
    const key = `${provider}\u0000${model}`;
    let entry = this.used.get(key);
    if (!entry) this.used.set(key, (entry = { provider, model, calls: 0, input: 0, output: 0, cached: 0, unreported: 0 }));
    return entry;
  }

  private count(provider: string, model: string, usage: ModelUsage | undefined): void {
    const entry = this.entry(provider, model);
    entry.calls++;
    if (!usage || usage.input + usage.output === 0) entry.unreported++;
    else {
      entry.input += usage.input;
      entry.output += usage.output;
      entry.cached += usage.cached;
    }
  }

  private client(target: SideTarget): Promise<ModelClient> {
    if (this.connection.mode === 'refused') return Promise.reject(new ToolmanError(ErrorCode.USAGE, this.connection.why));
    if (!(CHAT_PROVIDERS as readonly string[]).includes(target.provider)) return Promise.reject(new ToolmanError(ErrorCode.USAGE, `toolman does not talk to "${target.provider}"`));
    const provider = target.provider as ProviderName;
    const key = `${provider}\u0000${target.model}\u0000${target.baseUrl ?? ''}`;
    let client = this.clients.get(key);
    if (!client) {
      client = createModelClient(provider, target.model, this.clientConnection(provider, target.baseUrl));
      // A failure (a missing key) is not kept: the next call says it again, or finds the key set.
      client.catch(() => this.clients.delete(key));
      this.clients.set(key, client);
    }
    return client;
  }

  private clientConnection(provider: ProviderName, baseUrl: string | undefined): ClientConnection {
    if (this.connection.mode === 'replay') return { apiKey: 'replay', ...(baseUrl ? { baseUrl } : {}), fetch: this.connection.fetch };
    // The user's key goes only where the user's own settings say, never to a server an untrusted catalog chose.
    if (baseUrl && this.namedBy) throw new ToolmanError(ErrorCode.USAGE, `not called: ${this.namedBy} names the catalog, and its base_url ${baseUrl} is not sent your key`);
    const credentials = credentialsFor(provider, this.env, {
      purpose: (label) => `a summary or a grade from ${label}`,
      ...(baseUrl ? { baseUrl } : {}),
      keyOptionalWithBaseUrl: true,
      secrets: this.secrets,
    });
    return { apiKey: credentials.apiKey, ...(credentials.baseUrl ? { baseUrl: credentials.baseUrl } : {}), ...(this.connection.mode === 'live' && this.connection.fetch ? { fetch: this.connection.fetch } : {}) };
  }
}
