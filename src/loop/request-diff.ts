import { canonicalJson } from '../shared/canonical-json.js';
import { isRecord } from '../shared/is-record.js';

/** One difference between a recorded request and the one sent now, in words a catalog author reads. */
export interface RequestDifference {
  /** Where: `tools.search_email.description`, `messages[3].content`, `model`. */
  path: string;
  recorded: unknown;
  now: unknown;
  /** Only a tool's result differs: the catalog ran and answered differently, the conversation is the same. */
  toolResult: boolean;
}

/**
 * Compares two request bodies structurally. Tools are compared by name (a reordered list is not a
 * change; an added, removed or edited tool is named), messages and input items by position, and
 * everything else key by key. Stops after `limit` differences.
 */
export function requestDifferences(recorded: unknown, now: unknown, limit = 20): RequestDifference[] {
  const out: RequestDifference[] = [];
  const add = (path: string, a: unknown, b: unknown, toolResult = false) => {
    if (out.length < limit) out.push({ path, recorded: a, now: b, toolResult });
  };
  const walk = (a: unknown, b: unknown, path: string, inResult: boolean): void => {
    if (out.length >= limit || canonicalJson(a) === canonicalJson(b)) return;
    if (path === 'tools' && Array.isArray(a) && Array.isArray(b)) return compareTools(a, b);
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length && !(path === 'messages' || path === 'input')) return add(path, `${a.length} items`, `${b.length} items`, inResult);
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if (i >= a.length) add(`${path}[${i}]`, undefined, b[i], inResult);
        else if (i >= b.length) add(`${path}[${i}]`, a[i], undefined, inResult);
        else walk(a[i], b[i], `${path}[${i}]`, inResult || isToolResult(a[i]));
      }
      return;
    }
    if (isRecord(a) && isRecord(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (!Object.hasOwn(a, key)) add(join(path, key), undefined, b[key], inResult);
        else if (!Object.hasOwn(b, key)) add(join(path, key), a[key], undefined, inResult);
        else walk(a[key], b[key], join(path, key), inResult || isToolResult(a[key]));
      }
      return;
    }
    add(path, a, b, inResult);
  };
  const compareTools = (a: unknown[], b: unknown[]) => {
    const named = (list: unknown[]) => new Map(list.map((tool, i) => [toolName(tool) ?? `#${i}`, tool]));
    const before = named(a);
    const after = named(b);
    for (const name of before.keys()) if (!after.has(name)) add(`tools.${name}`, 'defined', 'removed');
    for (const [name, tool] of after) {
      if (!before.has(name)) add(`tools.${name}`, 'absent', 'added');
      else walk(unwrapTool(before.get(name)), unwrapTool(tool), `tools.${name}`, false);
    }
  };
  walk(recorded, now, '', false);
  return out;
}

/** The differences as lines, for a replay that cannot continue. */
export function describeDifferences(differences: readonly RequestDifference[]): string {
  // Tools added or removed wholesale (another profile, say) read better as one line each.
  const added = differences.filter((d) => /^tools\.[^.]+$/.test(d.path) && d.now === 'added').map((d) => d.path.slice(6));
  const removed = differences.filter((d) => /^tools\.[^.]+$/.test(d.path) && d.now === 'removed').map((d) => d.path.slice(6));
  const lines = differences.filter((d) => !(/^tools\.[^.]+$/.test(d.path) && (d.now === 'added' || d.now === 'removed'))).map((d) => `  ${d.path || '(the body)'}: recorded ${show(d.recorded)}, now ${show(d.now)}`);
  const list = (names: string[]) => (names.length > 6 ? `${names.slice(0, 6).join(', ')} and ${names.length - 6} more (at least)` : names.join(', '));
  if (added.length) lines.unshift(`  tools added: ${list(added)}`);
  if (removed.length) lines.unshift(`  tools removed: ${list(removed)}`);
  return lines.join('\n');
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** A tool's name in any provider's shape: {function: {name}} (Chat), {name} (Responses, Anthropic). */
function toolName(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined;
  if (isRecord(tool.function) && typeof tool.function.name === 'string') return tool.function.name;
  return typeof tool.name === 'string' ? tool.name : undefined;
}

function unwrapTool(tool: unknown): unknown {
  return isRecord(tool) && isRecord(tool.function) ? tool.function : tool;
}

/** A message or item that carries a tool's result, in each API's shape. */
function isToolResult(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return value.role === 'tool' || value.type === 'function_call_output' || value.type === 'tool_result';
}

/**
 * The tool whose result sits at `path` (`messages[3].content`, `input[4].output`,
 * `messages[2].content[0].content`) in a request body, found through the call it answers, in each
 * API's shape; undefined when the path is not inside a tool result.
 */
export function toolOfResult(body: unknown, path: string): string | undefined {
  const match = /^(messages|input)\[(\d+)\](?:\.content\[(\d+)\])?/.exec(path);
  if (!match || !isRecord(body)) return undefined;
  const list = body[match[1]!];
  if (!Array.isArray(list)) return undefined;
  let item: unknown = list[Number(match[2])];
  if (match[3] !== undefined && isRecord(item) && Array.isArray(item.content)) item = item.content[Number(match[3])];
  if (!isRecord(item)) return undefined;
  const id = item.role === 'tool' ? item.tool_call_id : item.type === 'function_call_output' ? item.call_id : item.type === 'tool_result' ? item.tool_use_id : undefined;
  if (typeof id !== 'string') return undefined;
  for (const entry of list) {
    if (!isRecord(entry)) continue;
    if (entry.type === 'function_call' && entry.call_id === id && typeof entry.name === 'string') return entry.name;
    for (const call of Array.isArray(entry.tool_calls) ? entry.tool_calls : []) {
      if (isRecord(call) && call.id === id && isRecord(call.function) && typeof call.function.name === 'string') return call.function.name;
    }
    for (const block of Array.isArray(entry.content) ? entry.content : []) {
      if (isRecord(block) && block.type === 'tool_use' && block.id === id && typeof block.name === 'string') return block.name;
    }
  }
  return undefined;
}
