import type { ReferenceSpec } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { parseSelector, select, type Selector } from '../shared/json-selector.js';
import { plainText } from '../shared/plain-text.js';
import { addressClass } from './runners/address-class.js';
import type { Reference } from './types.js';

/** The most sources taken from one result: a model cites a few, and each is text it reads. */
export const MAX_REFERENCES_PER_RESULT = 10;
export const MAX_URL_LENGTH = 2000;
export const MAX_TITLE_LENGTH = 200;
export const MAX_SNIPPET_LENGTH = 300;

/**
 * The schemes a source may have: a page a reader opens. Every other is refused, whatever a result
 * says: schemes that run something where the link is opened (`javascript:`, `data:`...), and
 * those that name something on the reader's own machine (`file:`) or another program's (`ftp:`,
 * an MCP server's `demo://` resources, which only that server can read).
 */
const WEB_SCHEMES = new Set(['http:', 'https:']);

/**
 * Cloud metadata services by name (by address they are link-local, refused by class): never a
 * page meant for a reader, and the classic target of a link a model or a client fetches next.
 * Compute Engine's answers at http://metadata.google.internal/computeMetadata/v1/
 * (https://cloud.google.com/compute/docs/storing-retrieving-metadata, read 2026-11-24).
 */
const METADATA_HOSTS = new Set(['metadata.google.internal']);

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
 * and snippets are cut to a sensible length, a URL must parse as a web page's (`citableUrl`), and
 * `clean` (the executor's secret redaction) goes over each. A
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
  return citableUrl(text) ? text : undefined;
}

/**
 * Whether a URL from an untrusted result may be given as a source: http or https only; no user
 * name or password in it (`https://docs.example.com@evil.example/` reads as one host and goes to
 * another); not a link-local address (169.254.0.0/16, fe80::/10, fd00:ec2::254: where cloud
 * metadata answers) nor a metadata service's name. Private and loopback hosts stay citable: an
 * intranet page or a local documentation server is what an internal catalog cites. A name is not
 * resolved (a source is text shown, not fetched), so a public name that points at a link-local
 * address is not caught here; the `http` runner checks the addresses it connects to.
 */
export function citableUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (!WEB_SCHEMES.has(url.protocol) || url.username || url.password) return false;
  const host = url.hostname.replace(/\.$/, '');
  return !METADATA_HOSTS.has(host) && addressClass(host) !== 'link-local';
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
