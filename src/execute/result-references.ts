import type { ReferenceSpec } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { parseSelector, select, type Selector } from '../shared/json-selector.js';
import { plainText } from '../shared/plain-text.js';
import type { Reference } from './types.js';

/** The most sources taken from one result: a model cites a few, and each is text it reads. */
export const MAX_REFERENCES_PER_RESULT = 10;
export const MAX_URL_LENGTH = 2000;
export const MAX_TITLE_LENGTH = 200;
export const MAX_SNIPPET_LENGTH = 300;

/** URL schemes that run something where a link is opened: never passed on, whatever a result says. */
const ACTIVE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'blob:']);

const parsed = new Map<string, Selector | null>();

function selector(text: string): Selector | null {
  let found = parsed.get(text);
  if (found === undefined) {
    const result = parseSelector(text);
    found = result.ok ? result.selector : null;
    parsed.set(text, found);
  }
  return found;
}

/**
 * The citable sources in a tool's result, as its `references:` describes them, on the whole
 * result (before truncation, which could cut sources away). A result is untrusted: every string
 * is cleaned of control and invisible characters, whitespace is folded to single spaces, titles
 * and snippets are cut to a sensible length, a URL must parse and must not be a scheme that runs
 * code (javascript:, data:...), and `clean` (the executor's secret redaction) goes over each. A
 * selector that does not parse finds nothing here (validate reports it: TM1406).
 */
export function resultReferences(spec: ReferenceSpec, value: unknown, clean: (text: string) => string = (t) => t): Reference[] {
  const found: Reference[] = [];
  const seen = new Set<string>();
  const add = (url: unknown, title: unknown, snippet: unknown) => {
    if (found.length >= MAX_REFERENCES_PER_RESULT) return;
    const link = cleanUrl(url, clean);
    if (!link || seen.has(link)) return;
    seen.add(link);
    const name = cleanText(title, MAX_TITLE_LENGTH, clean);
    const excerpt = cleanText(snippet, MAX_SNIPPET_LENGTH, clean);
    found.push({ url: link, ...(name ? { title: name } : {}), ...(excerpt ? { snippet: excerpt } : {}) });
  };
  if (spec.kind === 'resource_links') {
    for (const link of resourceLinks(value)) add(link.uri, link.name, link.description);
    return found;
  }
  const items = selector(spec.items);
  const url = selector(spec.url);
  if (!items || !url) return found;
  const title = spec.title ? selector(spec.title) : null;
  const snippet = spec.snippet ? selector(spec.snippet) : null;
  const root = typeof value === 'string' ? parseJson(value) : value;
  // A few more items than kept: some may have no usable URL.
  for (const item of select(items, root, MAX_REFERENCES_PER_RESULT * 5)) {
    add(first(url, item), title ? first(title, item) : undefined, snippet ? first(snippet, item) : undefined);
  }
  return found;
}

function first(selector: Selector, item: unknown): unknown {
  return select(selector, item, 1)[0];
}

function cleanText(value: unknown, max: number, clean: (text: string) => string): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  // Cut before cleaning: a result's string may be megabytes long.
  const text = clean(plainText(String(value).slice(0, max * 4)))
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function cleanUrl(value: unknown, clean: (text: string) => string): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return undefined;
  const text = clean(plainText(value)).trim();
  if (!text || /\s/.test(text)) return undefined;
  try {
    const url = new URL(text);
    if (ACTIVE_SCHEMES.has(url.protocol.toLowerCase())) return undefined;
  } catch {
    return undefined;
  }
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The `resource_link` blocks of an MCP tool's result, as the MCP runner renders them into the
 * result's text (mcp/call-result.ts: `[resource link NAME URI: DESCRIPTION]`, one per block).
 */
function resourceLinks(value: unknown): { uri: string; name?: string; description?: string }[] {
  const text = typeof value === 'string' ? value : isRecord(value) && typeof value.content === 'string' ? value.content : '';
  const links: { uri: string; name?: string; description?: string }[] = [];
  for (const line of text.split('\n')) {
    if (links.length >= MAX_REFERENCES_PER_RESULT * 5) break;
    const match = /^\[resource link (?:(.*?) )?(\S+?)(?:: (.*))?\]$/.exec(line.length > MAX_URL_LENGTH * 2 ? '' : line);
    if (match) links.push({ uri: match[2]!, ...(match[1] ? { name: match[1] } : {}), ...(match[3] ? { description: match[3] } : {}) });
  }
  return links;
}
