import { isSpecType, type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client';
import { isRecord } from '../shared/is-record.js';
import { paramHeaderProblem } from '../shared/x-mcp-header.js';

/** Something the transport changed in a server's answer before the SDK read it. */
export interface RepairNote {
  method: string;
  /** The tool a note is about (by its listed name, or `#index` when it has none). */
  tool?: string;
  /** TM0830 for an invalid `x-mcp-header`, TM0804 for everything else. */
  code: 'TM0804' | 'TM0830';
  message: string;
}

/** Results whose lists carry the 2026-07-28 cache hints (`server/utilities/caching.mdx`). */
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** Requests tracked at once; a server that never answers cannot grow the map past this. */
const MAX_PENDING = 10_000;

/**
 * Wraps the transport the SDK's `Client` reads from (toolman's stdio transport, or the SDK's
 * streamable HTTP one) and repairs a 2026-07-28 server's answers before the SDK decodes them.
 *
 * Why: on a 2026-era connection the v2 client checks every spec result against the revision's
 * wire schema, whatever result schema the caller passes, and rejects the whole result when any
 * part breaks it (tested with 2.4.0: one tool without `inputSchema.type` fails the whole
 * `tools/list`, one content block of an unknown kind fails the whole `tools/call`). toolman
 * promises that one bad tool never costs the list and that unknown content is kept as a named
 * block, so here: a tool that breaks the schema is left out with a note (TM0804), one with
 * invalid `x-mcp-header` marks too on HTTP (TM0830, as the spec requires; the SDK's own check
 * would print a console warning over the REPL instead); a content block of an unknown or
 * malformed kind becomes a text block naming it; missing cache hints become "immediately stale"
 * (`ttlMs: 0`, `cacheScope: private`); a missing `resultType` means complete (a server that
 * forgot it answered; the SDK would refuse the answer). 2025-era answers pass through untouched:
 * the SDK does not check them (toolman reads them as any result).
 */
export class TolerantTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly pending = new Map<string | number, string>();
  private modern = false;

  constructor(
    readonly inner: Transport,
    private readonly options: { http: boolean; onRepair: (note: RepairNote) => void },
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(this.repair(message), extra);
    // The SDK tells stdio from HTTP by shape (`stderr` and `pid` on the transport): keep that visible.
    if ('stderr' in inner && 'pid' in inner) {
      Object.defineProperty(this, 'stderr', { get: () => (inner as unknown as { stderr: unknown }).stderr, enumerable: false });
      Object.defineProperty(this, 'pid', { get: () => (inner as unknown as { pid: unknown }).pid, enumerable: false });
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message && message.id !== undefined) {
      if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
      this.pending.set(message.id, message.method);
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    // Revisions are dates: 2026-07-28 and later are the stateless era.
    this.modern = version >= '2026-07-28';
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  /** OAuth's last step on the HTTP transport (`finishAuth`), passed through. */
  finishAuth(params: URLSearchParams): Promise<void> {
    const inner = this.inner as Transport & { finishAuth?: (params: URLSearchParams) => Promise<void> };
    if (!inner.finishAuth) return Promise.reject(new Error('this transport has no authorization flow'));
    return inner.finishAuth(params);
  }

  private repair<T extends JSONRPCMessage>(message: T): T {
    if (!('id' in message) || message.id === undefined || message.id === null || !('result' in message)) {
      if ('id' in message && message.id !== undefined && message.id !== null) this.pending.delete(message.id);
      return message;
    }
    const method = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (!method || !this.modern || !isRecord(message.result)) return message;
    const result: Record<string, unknown> = { ...message.result };
    if (result.resultType === undefined) result.resultType = 'complete';
    if (result.resultType !== 'complete') return { ...message, result };
    if (CACHEABLE.has(method)) {
      if (!(typeof result.ttlMs === 'number' && Number.isInteger(result.ttlMs) && result.ttlMs >= 0)) {
        if (result.ttlMs !== undefined) this.note(method, `its ttlMs ${JSON.stringify(result.ttlMs).slice(0, 40)} is not a whole number of milliseconds; the list is treated as immediately stale`);
        result.ttlMs = 0;
      }
      if (result.cacheScope !== 'public' && result.cacheScope !== 'private') result.cacheScope = 'private';
    }
    if (method === 'tools/list') result.tools = this.tools(result.tools);
    // Prompts and resources the same way: one malformed entry is left out, not the whole answer.
    if (method === 'prompts/list') result.prompts = this.entries(method, result.prompts, 'prompt', isSpecType.Prompt);
    if (method === 'resources/list') result.resources = this.entries(method, result.resources, 'resource', isSpecType.Resource);
    if (method === 'resources/templates/list') result.resourceTemplates = this.entries(method, result.resourceTemplates, 'resource template', isSpecType.ResourceTemplate);
    if (method === 'prompts/get') {
      const messages = this.entries(method, result.messages, 'message', (m): m is Record<string, unknown> => isRecord(m) && (m.role === 'user' || m.role === 'assistant'));
      result.messages = messages.map((m) => ({ role: (m as Record<string, unknown>).role, content: block((m as Record<string, unknown>).content) }));
    }
    if (method === 'resources/read') result.contents = this.entries(method, result.contents, 'part', (c) => isSpecType.TextResourceContents(c) || isSpecType.BlobResourceContents(c));
    if (method === 'tools/call') {
      result.content = Array.isArray(result.content) ? result.content.map(block) : [];
      if (result.isError !== undefined && typeof result.isError !== 'boolean') result.isError = result.isError === true;
    }
    return { ...message, result };
  }

  private tools(listed: unknown): unknown[] {
    if (!Array.isArray(listed)) {
      this.note('tools/list', 'answered tools/list without a list of tools');
      return [];
    }
    const kept: unknown[] = [];
    listed.forEach((raw, index) => {
      const name = isRecord(raw) && typeof raw.name === 'string' ? raw.name : `#${index}`;
      const checked = checkTool(raw);
      if ('problem' in checked) {
        this.note('tools/list', `left out: ${checked.problem}`, name);
        return;
      }
      if (this.options.http) {
        const problem = paramHeaderProblem(checked.tool.inputSchema);
        if (problem) {
          this.options.onRepair({ method: 'tools/list', tool: name, code: 'TM0830', message: `left out: invalid x-mcp-header: ${problem}` });
          return;
        }
      }
      kept.push(checked.tool);
    });
    return kept;
  }

  /** The entries of a list the spec's guard accepts; each other one is left out with a note. */
  private entries(method: string, listed: unknown, what: string, valid: (entry: unknown) => boolean): unknown[] {
    if (!Array.isArray(listed)) {
      this.note(method, `answered ${method} without a list`);
      return [];
    }
    const kept = listed.filter((entry) => valid(entry));
    const dropped = listed.length - kept.length;
    if (dropped > 0) this.note(method, `${dropped} malformed ${what}${dropped === 1 ? '' : 's'} left out of its answer`);
    return kept;
  }

  private note(method: string, message: string, tool?: string): void {
    this.options.onRepair({ method, code: 'TM0804', message, ...(tool !== undefined ? { tool } : {}) });
  }
}

/**
 * A `tools/list` entry as the 2026-07-28 wire schema takes it (`schema/2026-07-28/schema.ts`
 * `Tool`): the fields toolman reads must be right or the tool is left out; `icons` and `_meta`,
 * which it does not read, are dropped when malformed instead.
 */
function checkTool(raw: unknown): { tool: Record<string, unknown> } | { problem: string } {
  if (!isRecord(raw)) return { problem: 'the entry is not an object' };
  if (typeof raw.name !== 'string' || raw.name === '') return { problem: 'it has no name' };
  for (const key of ['title', 'description'] as const) if (raw[key] !== undefined && typeof raw[key] !== 'string') return { problem: `its ${key} is not text` };
  const input = raw.inputSchema;
  if (!isRecord(input) || input.type !== 'object') return { problem: 'its inputSchema is not an object schema (type: object)' };
  if (input.$schema !== undefined && typeof input.$schema !== 'string') return { problem: 'its inputSchema.$schema is not a string' };
  const output = raw.outputSchema;
  if (output !== undefined && (!isRecord(output) || (output.$schema !== undefined && typeof output.$schema !== 'string'))) return { problem: 'its outputSchema is not a schema object' };
  if (raw.annotations !== undefined && !isSpecType.ToolAnnotations(raw.annotations)) return { problem: 'its annotations are malformed (hints must be true or false)' };
  const tool = { ...raw };
  if (tool.icons !== undefined && !isSpecType.Icons({ icons: tool.icons })) delete tool.icons;
  if (tool._meta !== undefined && !isRecord(tool._meta)) delete tool._meta;
  return { tool };
}

/** A content block the SDK takes, or a text block naming what it was ("[hologram content]"). */
function block(raw: unknown): unknown {
  if (isSpecType.ContentBlock(raw)) return raw;
  // A text block with something else wrong (its annotations, say) keeps its text.
  if (isRecord(raw) && raw.type === 'text' && typeof raw.text === 'string') return { type: 'text', text: raw.text };
  const kind = isRecord(raw) && typeof raw.type === 'string' ? raw.type.replace(/[^\w.-]/g, '').slice(0, 40) || 'unknown' : 'unknown';
  const known = ['text', 'image', 'audio', 'resource', 'resource_link'].includes(kind);
  return { type: 'text', text: `[${known ? `malformed ${kind}` : kind} content]` };
}
