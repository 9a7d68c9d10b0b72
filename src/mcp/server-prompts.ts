import type { McpServerConfig } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { blockText, cleanBlock, cleanLabel, cleanText, ContentNotes, type McpContentBlock } from './content-blocks.js';

/**
 * An MCP server's prompts (MCP 2026-07-28 `server/prompts.mdx`) as toolman holds them: named
 * like the server's tools (the entry's `prefix`, then the server's own name), every text from
 * the server cleaned and bounded (it is untrusted: it goes to a terminal and to a model).
 */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

export interface McpPrompt {
  /** The name toolman offers it under: the server entry's `prefix` + its own name. */
  name: string;
  server: string;
  /** The server's own name for it (what `prompts/get` sends). */
  mcpName: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
}

export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: McpContentBlock;
}

/** What `prompts/get` gave, cleaned: the messages, and what cleaning changed. */
export interface McpPromptResult {
  name: string;
  server: string;
  mcpName: string;
  description?: string;
  messages: McpPromptMessage[];
  /** What was cut, removed or left out, in words. */
  notes: string[];
}

/** A server offering more prompts than this is cut here (a hostile list cannot grow without end). */
export const MAX_PROMPTS_PER_SERVER = 1_000;
/** A prompt's messages past this many are left out. */
const MAX_PROMPT_MESSAGES = 100;
const MAX_ARGUMENTS = 50;
const MAX_DESCRIPTION_CHARS = 8_000;

/** One server's `prompts/list` entries as prompts, with a note for each entry left out. */
export function serverPrompts(config: McpServerConfig, listed: readonly unknown[]): { prompts: McpPrompt[]; notes: string[] } {
  const prompts: McpPrompt[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of listed.slice(0, MAX_PROMPTS_PER_SERVER).entries()) {
    const mcpName = isRecord(raw) ? cleanLabel(raw.name) : undefined;
    if (!isRecord(raw) || !mcpName?.trim() || mcpName !== raw.name) {
      // Asked for by its exact name, so a name toolman would have to clean cannot be offered.
      notes.push(`prompt ${index} left out: ${mcpName?.trim() ? 'its name holds control or invisible characters, or is longer than 2,000 characters' : 'it has no name'}`);
      continue;
    }
    if (seen.has(mcpName)) continue;
    seen.add(mcpName);
    const cleaning = new ContentNotes();
    const args = Array.isArray(raw.arguments) ? raw.arguments.slice(0, MAX_ARGUMENTS) : [];
    const title = cleanLabel(raw.title);
    const description = typeof raw.description === 'string' ? cleanText(raw.description, cleaning, 'its description', MAX_DESCRIPTION_CHARS) : undefined;
    prompts.push({
      name: config.prefix + mcpName,
      server: config.name,
      mcpName,
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      arguments: args.flatMap((arg): McpPromptArgument[] => {
        const name = isRecord(arg) ? cleanLabel(arg.name) : undefined;
        if (!isRecord(arg) || !name) return [];
        const text = typeof arg.description === 'string' ? cleanText(arg.description, cleaning, `argument ${name}`, 2_000) : undefined;
        return [{ name, ...(text ? { description: text } : {}), required: arg.required === true }];
      }),
    });
    for (const note of cleaning.notes) notes.push(`prompt ${JSON.stringify(mcpName)}: ${note}`);
  }
  if (listed.length > MAX_PROMPTS_PER_SERVER) notes.push(`it offers ${listed.length} prompts; the first ${MAX_PROMPTS_PER_SERVER} are used`);
  return { prompts, notes };
}

/**
 * Checks the arguments given for a prompt before it is asked for: each a string (MCP prompt
 * arguments are strings), none unknown, every required one there. Returns the problem in words.
 */
export function promptArgumentsProblem(prompt: McpPrompt, args: Record<string, unknown>): string | undefined {
  const known = new Set(prompt.arguments.map((a) => a.name));
  const unknown = Object.keys(args).filter((name) => !known.has(name));
  if (unknown.length) return `prompt ${prompt.name} has no argument ${unknown.map((n) => JSON.stringify(n)).join(', ')}${known.size ? ` (its arguments: ${[...known].join(', ')})` : ' (it takes none)'}`;
  const notText = Object.entries(args).filter(([, value]) => typeof value !== 'string');
  if (notText.length) return `prompt arguments are text: ${notText.map(([name]) => name).join(', ')} ${notText.length === 1 ? 'is' : 'are'} not`;
  const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
  if (missing.length) return `prompt ${prompt.name} needs ${missing.join(', ')}`;
  return undefined;
}

/** A `prompts/get` result, cleaned. */
export function promptResult(prompt: McpPrompt, raw: Record<string, unknown>): McpPromptResult {
  const notes = new ContentNotes();
  const listed = Array.isArray(raw.messages) ? raw.messages : [];
  if (listed.length > MAX_PROMPT_MESSAGES) notes.add(`${listed.length - MAX_PROMPT_MESSAGES} of its ${listed.length} messages left out`);
  const messages: McpPromptMessage[] = [];
  for (const message of listed.slice(0, MAX_PROMPT_MESSAGES)) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      notes.add('a malformed message left out');
      continue;
    }
    messages.push({ role: message.role, content: cleanBlock(message.content, notes) });
  }
  const description = typeof raw.description === 'string' ? cleanText(raw.description, notes, 'its description', MAX_DESCRIPTION_CHARS) : undefined;
  return { name: prompt.name, server: prompt.server, mcpName: prompt.mcpName, ...(description ? { description } : {}), messages, notes: notes.notes };
}

/**
 * A prompt's messages as one message for a conversation: with only user messages, their texts
 * joined by blank lines; when the server wrote assistant messages too, each is labelled with its
 * role, so the model reads who said what (a conversation's turn is one user message).
 */
export function promptText(result: McpPromptResult): string {
  const labelled = result.messages.some((m) => m.role === 'assistant');
  return result.messages.map((m) => (labelled ? `[${m.role}]\n${blockText(m.content)}` : blockText(m.content))).join('\n\n');
}

/** "its arguments: city (required): Name of the city; state" */
export function describeArguments(prompt: McpPrompt): string {
  if (!prompt.arguments.length) return `prompt ${prompt.name} takes no arguments`;
  return `its arguments: ${prompt.arguments.map((a) => `${a.name}${a.required ? ' (required)' : ''}${a.description ? `: ${a.description.replace(/\s+/g, ' ').slice(0, 80)}` : ''}`).join('; ')}`;
}
