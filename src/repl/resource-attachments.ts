import { attachmentText, describeRead, type ServerContent } from '../manager/mcp-client.js';
import type { ToolManager } from '../manager/tool-manager.js';

/**
 * `@SERVER:URI` in a message attaches that resource of one of the catalog's MCP servers: the
 * REPL reads it (through the manager) before the turn, and the model gets the message followed
 * by each resource's content under its server and URI. Only the names of the catalog's servers
 * count (`@alice:` in an address is left alone), after the start of the message or a space; a
 * sentence's closing punctuation after the URI is not part of it.
 */
export interface ResourceReference {
  server: string;
  uri: string;
}

/** At most this many resources are attached to one message. */
export const MAX_ATTACHMENTS = 10;
/** The attachments of one message together are cut to this many characters (the model's context is not unbounded). */
export const MAX_ATTACHED_CHARS = 200_000;

/** The `@SERVER:URI` references in `text`, each once, in order. */
export function resourceReferences(text: string, servers: readonly string[]): ResourceReference[] {
  const known = new Set(servers);
  const found: ResourceReference[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([^\s:@]+):(\S+)/g)) {
    const server = match[1]!;
    const uri = match[2]!.replace(/[.,;!?]+$/, '');
    if (!known.has(server) || uri === '' || found.some((r) => r.server === server && r.uri === uri)) continue;
    found.push({ server, uri });
  }
  return found;
}

/**
 * The message the model gets: `text`, then each referenced resource's content (read from its
 * server, cleaned and bounded by the core), cut to MAX_ATTACHED_CHARS in all. `note` hears what
 * was attached. A resource that cannot be read fails the whole message: the user asked for it.
 */
export async function withAttachments(text: string, references: readonly ResourceReference[], content: ServerContent, note: (text: string) => void, signal?: AbortSignal): Promise<string> {
  if (references.length > MAX_ATTACHMENTS) throw new Error(`a message attaches at most ${MAX_ATTACHMENTS} resources (this one names ${references.length})`);
  const parts: string[] = [];
  for (const ref of references) {
    const read = await content.readResource(ref, signal);
    parts.push(attachmentText(read));
    note(`attached ${ref.server}:${ref.uri} (${describeRead(read)})${read.notes.length ? `; ${read.notes.join('; ')}` : ''}`);
  }
  let attached = parts.join('\n\n');
  if (attached.length > MAX_ATTACHED_CHARS) {
    note(`the attachments were cut to ${MAX_ATTACHED_CHARS.toLocaleString('en-US')} of ${attached.length.toLocaleString('en-US')} characters`);
    attached = `${attached.slice(0, MAX_ATTACHED_CHARS)}\n[cut: ${(attached.length - MAX_ATTACHED_CHARS).toLocaleString('en-US')} more characters]`;
  }
  return parts.length ? `${text}\n\n${attached}` : text;
}

/**
 * The MCP servers' prompt names and resource URIs Tab offers (`/prompt NAME`, `@SERVER:URI`):
 * listed in the background the first time Tab needs them (the next Tab offers them), and again
 * whenever a server says they changed.
 */
export class ContentNames {
  private names: { prompts: { name: string; arguments: string[] }[]; resources: { server: string; uri: string }[] } = { prompts: [], resources: [] };
  private listed = false;
  private closed = false;
  private stop: (() => void) | undefined;

  constructor(
    private readonly manager: ToolManager,
    private readonly hint: (text: string) => void,
  ) {}

  prompts(): readonly { name: string; arguments: readonly string[] }[] {
    this.ensure();
    return this.names.prompts;
  }

  resources(): readonly { server: string; uri: string }[] {
    this.ensure();
    return this.names.resources;
  }

  close(): void {
    this.closed = true;
    this.stop?.();
  }

  private ensure(): void {
    if (this.listed || this.manager.catalog.mcpServers.size === 0) return;
    this.listed = true;
    this.hint("listing the MCP servers' prompts and resources: Tab again in a moment");
    void this.list();
  }

  private async list(): Promise<void> {
    if (this.closed) return;
    try {
      const content = await this.manager.mcpContent();
      this.stop ??= content.onChange(() => void this.list());
      const [{ prompts }, { resources }] = await Promise.all([content.prompts(), content.resources()]);
      this.names = { prompts: prompts.map((p) => ({ name: p.name, arguments: p.arguments.map((a) => a.name) })), resources: resources.map((r) => ({ server: r.server, uri: r.uri })) };
    } catch {
      // Tab goes without them; /prompt and /resources say what failed
    }
  }
}
