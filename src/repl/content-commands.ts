import { describeArguments, promptText, type McpContentProblem, type McpPrompt } from '../manager/mcp-client.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { OutputLine } from './repl-state.js';
import type { Runner } from './slash-commands.js';

/**
 * The slash commands over the MCP servers' prompts and resources, through the manager:
 * `/prompt NAME [ARG=VALUE...]` sends a server's prompt as the user's next message; `/prompt`
 * and `/resources` list what there is (resources are attached with `@SERVER:URI` in a message,
 * resource-attachments.ts).
 */
export const CONTENT_COMMANDS: Record<string, Runner> = {
  prompt: async (args, host) => {
    const content = await host.context.manager.mcpContent();
    const [name, rest] = splitFirst(args);
    if (!name) {
      const { prompts, problems } = await content.prompts();
      if (!prompts.length) return host.note('dim', noneBecause('prompts', problems, host.context.manager.catalog.mcpServers.size));
      const width = Math.min(28, Math.max(...prompts.map((p) => p.name.length)) + 4);
      host.output(
        [
          ...prompts.map((p) => ({ label: `  ${p.name}`, labelWidth: width, text: [p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(' '), p.title ?? p.description ?? ''].filter(Boolean).join(' · ') })),
          ...problemLines(problems),
          { text: '/prompt NAME ARG=VALUE... sends one as your next message', style: 'dim' as const },
        ],
        `MCP prompts (${prompts.length})`,
      );
      return;
    }
    const { prompts } = await content.prompts();
    const prompt = prompts.find((p) => p.name === name);
    const result = await content.getPrompt(name, prompt ? promptArguments(rest, prompt) : {});
    const text = promptText(result);
    for (const note of result.notes) host.note('warning', `prompt ${name}: ${note}`);
    if (!text.trim()) return host.note('warning', `prompt ${name} from MCP server ${result.server} has no text to send`);
    host.note('dim', `prompt ${name} from MCP server ${result.server}: ${result.messages.length} message${result.messages.length === 1 ? '' : 's'} as your next message`);
    await host.send(text);
  },

  resources: async (_args, host) => {
    const content = await host.context.manager.mcpContent();
    const { resources, templates, problems } = await content.resources();
    if (!resources.length && !templates.length) return host.note('dim', noneBecause('resources', problems, host.context.manager.catalog.mcpServers.size));
    const refs = resources.map((r) => ({ ref: `@${r.server}:${r.uri}`, text: [r.mimeType, r.title ?? r.description ?? (r.name !== r.uri ? r.name : '')].filter(Boolean).join(' · ') }));
    const width = Math.min(48, Math.max(4, ...refs.map((r) => r.ref.length)) + 4);
    host.output(
      [
        ...refs.map((r) => ({ label: `  ${r.ref}`, labelWidth: width, text: r.text })),
        ...(templates.length ? [{ text: 'templates (fill in the {...} parts)', style: 'bold' as const }, ...templates.map((t) => ({ label: `  @${t.server}:${t.uriTemplate}`, labelWidth: width, text: [t.mimeType, t.title ?? t.description ?? ''].filter(Boolean).join(' · ') }))] : []),
        ...problemLines(problems),
        { text: '@SERVER:URI in a message attaches that resource (Tab completes it)', style: 'dim' as const },
      ],
      `MCP resources (${resources.length})`,
    );
  },
};

/**
 * A prompt's arguments as typed after its name: `ARG=VALUE` pairs, a value in quotes when it
 * holds spaces (`code="x = 1"`); for a prompt with a single argument, the whole text may be its
 * value (`/prompt summarize the text to sum up`).
 */
export function promptArguments(text: string, prompt: McpPrompt): Record<string, string> {
  const trimmed = text.trim();
  if (!trimmed) return {};
  if (prompt.arguments.length === 1 && !/^[\w.-]+=/.test(trimmed)) return { [prompt.arguments[0]!.name]: unquote(trimmed) };
  const args: Record<string, string> = {};
  const pair = /([^\s=]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/y;
  let at = 0;
  while (at < trimmed.length) {
    while (trimmed[at] === ' ') at++;
    if (at >= trimmed.length) break;
    pair.lastIndex = at;
    const match = pair.exec(trimmed);
    if (!match) throw new ToolmanError(ErrorCode.USAGE, `/prompt ${prompt.name}: "${trimmed.slice(at, at + 30)}" is not ARG=VALUE`, { hint: describeArguments(prompt) });
    Object.defineProperty(args, match[1]!, { value: unquote(match[2]!), enumerable: true, writable: true, configurable: true });
    at = pair.lastIndex;
  }
  return args;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(.)/g, '$1');
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  return value;
}

function splitFirst(text: string): [string, string] {
  const match = /^(\S*)\s*([\s\S]*)$/.exec(text.trim())!;
  return [match[1]!, match[2]!];
}

function problemLines(problems: readonly McpContentProblem[]): OutputLine[] {
  return problems.slice(0, 10).map((p) => ({ text: `  ${p.server}: ${p.message}`, style: 'warning' as const }));
}

function noneBecause(what: string, problems: readonly McpContentProblem[], servers: number): string {
  if (servers === 0) return `no MCP ${what}: this catalog has no MCP servers (mcp_servers:)`;
  const unreachable = problems.filter((p) => p.message.includes('could not be listed'));
  return unreachable.length ? `no MCP ${what}; not reached: ${unreachable.map((p) => `${p.server} (${p.message})`).join('; ')}` : `the catalog's MCP servers offer no ${what}`;
}
