import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { Catalog, Tool } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { splitWords } from '../search/tokenize.js';
import { reporterFor } from './check-tools.js';
import { GENERIC_NAME_WORDS, STOP, leadingWord, stem, verbKind } from './tool-words.js';
import { CRITERIA, type CatalogQuality, type Criterion, type ToolQuality } from './quality-criteria.js';

export { CRITERIA, type CatalogQuality, type Criterion, type ToolQuality } from './quality-criteria.js';

// These read lower-cased text: case-insensitive patterns cost more to compile, and validate runs each once.
/** Words that tell a model when (or when not) to use a tool. */
const USAGE = /\b(?:use\s+(?:it|this|them)|use\s+\w+\s+(?:instead|first|to|for)|use\s+when|(?:only\s+)?when\s+(?:you|the\s+user|a\s+user|asked|needed|it|to)|if\s+(?:you|the\s+user)|only\s+(?:when|if|for|after|once)|before\s+\w+ing|after\s+\w+ing|instead\s+of|rather\s+than|prefer|(?:do\s+not|don'?t|never)\s+(?:use|call)|not\s+for\b|unless\b|for\s+(?:questions|requests|tasks|cases)\b)/;
/** Words that say what comes back. */
const RETURNS = /\b(?:returns?|returning|gives?|answers?\s+with|responds?\s+with|outputs?|yields?|results?\s+(?:are|is|include)|with\s+(?:its|their|the)\b|including\b|as\s+(?:json|markdown|csv|text|a\s+list|an?\s+\w+\s+(?:list|id|url|link))|an?\s+(?:id|url|link|list)\b)/;
/** Verb kinds that read and hand back what they found: "List the invoices" says it returns them. */
const READING = new Set(['get', 'list', 'find', 'compute', 'convert', 'translate', 'summarize', 'analyze', 'predict', 'generate', 'export', 'check', 'capture', 'count', 'parse', 'format', 'explain']);
/** Words that state what a destructive call takes away. */
const LOSS = /\b(?:permanent(?:ly)?|undone|undo|irreversib\w*|irrevocab\w*|for\s+good|recover\w*|recall\w*|restor\w*|lost|loses?|gone|trash\w*|recycle|deleted|removed|erased|destroyed|kept|stays?|remains?|no\s+longer|nobody\s+can|closed|cancellations?|notif(?:y|ies|ied)|refund\w*|revok\w*|confirm\w*|approval|back\s*up|snapshot)\b/;
/** Words of parameter names that carry a format a model has to get right (`start_date`, `email`). */
const FORMATTED = new Set(['date', 'time', 'datetime', 'timestamp', 'due', 'deadline', 'email', 'url', 'uri', 'link', 'phone', 'currency', 'country', 'language', 'locale', 'timezone', 'tz', 'duration', 'cron', 'color', 'colour', 'ip', 'zip', 'postcode', 'iban', 'isbn']);
/** Names that carry a format only on their own (`from`, `to`: a range; `in_reply_to` is an id). */
const FORMATTED_ALONE = new Set(['from', 'to', 'since', 'until', 'start', 'end', 'when', 'at']);
/** Words in a description that state a format. */
const FORMAT_STATED = /\b(?:e\.g\.|eg|for\s+example|such\s+as|like|iso|rfc|yyyy|mm|dd|hh|utc|format|formatted|in\s+the\s+form|pattern|code|e\.164|international|two-letter|three-letter|minutes|seconds|hours|days|milliseconds|ms)\b|["'`0-9+]/;

/** Grades one tool. `report` receives the findings of the criteria that are not met (TM1101-TM1105). */
export function assessTool(tool: Tool, report?: (code: 'TM1101' | 'TM1102' | 'TM1103' | 'TM1104' | 'TM1105', path: (string | number)[], message: string, hint: string, part?: 'key') => void): ToolQuality {
  const text = [tool.summary, tool.description].filter((t): t is string => typeof t === 'string').join(' ').trim();
  const words = text.split(/\s+/).filter(Boolean).length;
  const lower = text.toLowerCase();
  const described = text.length >= 20 && words >= 4;
  const checks: Record<Criterion, boolean | null> = { purpose: described, usage: null, returns: null, effects: null, parameters: null, formats: null, own_words: null };
  const lead = leadingWord(tool.description ?? '');
  const kind = lead ? verbKind(lead) : undefined;
  // The criteria below read the description; a missing or short one is TM0204/TM0205's finding.
  if (described) {
    checks.usage = USAGE.test(lower);
    if (!checks.usage) report?.('TM1101', ['description'], 'the description does not say when to use the tool (or when not to)', 'add a sentence such as "Use it when..., not for... (use other_tool for that)": it is what a model reads to choose between tools');
    checks.returns = tool.effect === 'read' && kind !== undefined && READING.has(kind) ? true : RETURNS.test(lower);
    if (!checks.returns) report?.('TM1102', ['description'], 'the description does not say what the tool returns', 'say what comes back ("returns the new event\'s id", "returns matching messages with sender and subject"): a model plans its next step on it');
    if (tool.effect === 'destructive') {
      checks.effects = LOSS.test(lower);
      if (!checks.effects) report?.('TM1103', ['description'], 'a destructive tool whose description does not say what is lost or whether it can be undone', 'say what the call destroys and whether it can be undone ("deletes the event and notifies attendees; cannot be undone")');
    }
    const nameWords = new Set(splitWords(tool.name).map(stem));
    let own = 0;
    // Prose splits at non-letters (splitWords' camelCase passes cost more than they find in prose).
    for (const w of lower.split(/[^a-z0-9]+/)) if (w.length > 2 && !STOP.has(w) && !GENERIC_NAME_WORDS.has(w) && !nameWords.has(stem(w)) && ++own >= 2) break;
    checks.own_words = own >= 2;
    if (!checks.own_words) report?.('TM1105', ['description'], 'the description only repeats the tool\'s name', 'say what the name does not: what the tool acts on, when to use it, what it returns');
  }
  const properties = isRecord(tool.parameters.properties) ? Object.entries(tool.parameters.properties).filter(([, s]) => isRecord(s)) as [string, Record<string, unknown>][] : [];
  if (properties.length) {
    const withDescription = properties.filter(([, s]) => typeof s.description === 'string' && s.description.trim() !== '' || typeof s.title === 'string').length;
    checks.parameters = withDescription === properties.length;
    const formatted = properties.filter(([name, s]) => {
      const words = splitWords(name);
      return (s.type === 'string' || s.type === undefined) && (words.some((w) => FORMATTED.has(w)) || (words.length === 1 && FORMATTED_ALONE.has(words[0]!)));
    });
    if (formatted.length) {
      const unstated = formatted.filter(([, s]) => !('format' in s) && !('pattern' in s) && !('enum' in s) && !('const' in s) && !('examples' in s) && !(typeof s.description === 'string' && FORMAT_STATED.test(s.description.toLowerCase())));
      checks.formats = unstated.length === 0;
      for (const [name] of unstated) report?.('TM1104', ['parameters', 'properties', name], `parameter "${name}" does not say its format`, 'give a `format` (date-time, email, uri...), a `pattern` or an `enum`, or an example in its description ("e.g. 2026-11-24T09:00:00Z")', 'key');
    }
  }
  // Met: the full share; not met: none (parameters: the share described); not applicable: the full
  // share, except that without a description the criteria it would carry are not met either.
  const described_ = properties.filter(([, s]) => typeof s.description === 'string' && s.description.trim() !== '').length;
  let score = 0;
  for (const [criterion, weight] of Object.entries(CRITERIA) as [Criterion, number][]) {
    const met = checks[criterion];
    if (criterion === 'purpose') score += met ? weight : text.length > 0 ? weight / 3 : 0;
    else if (criterion === 'parameters') score += met === false ? (weight * described_) / properties.length : weight;
    else if (criterion === 'formats') score += met === false ? 0 : weight;
    else score += met === true || (met === null && described) ? weight : 0;
  }
  return { tool: tool.name, score: Math.round(score), checks, graded_by: 'rules' };
}

/** The quality findings (TM1101-TM1105) of every tool of the catalog, at the description or the parameter. */
export function checkDescriptionQuality(loaded: LoadedCatalog): void {
  for (const tool of gradedTools(loaded.catalog)) {
    const reporter = reporterFor(loaded, tool);
    if (!reporter || tool.source.kind === 'meta') continue;
    const base = segmentsOf(tool.source.pointer);
    const isAgent = tool.source.kind === 'agent';
    for (const { code, path, message, hint, part } of graded(tool).findings) {
      // An agent's entry is keyed by its name; its description sits at the entry.
      const pointer = isAgent && path[0] !== 'description' ? tool.source.kind === 'agent' ? tool.source.pointer : '' : pointerOf([...base, ...path]);
      reporter.report(code, pointer, message, { hint, ...(part ? { part } : {}) });
    }
  }
}

/** The scores of every tool a model can be offered, and the catalog's. */
export function descriptionQuality(catalog: Catalog): CatalogQuality {
  const tools = gradedTools(catalog).map((tool) => graded(tool).quality);
  return { score: tools.length ? Math.round(tools.reduce((sum, t) => sum + t.score, 0) / tools.length) : null, tools };
}

type Finding = { code: 'TM1101' | 'TM1102' | 'TM1103' | 'TM1104' | 'TM1105'; path: (string | number)[]; message: string; hint: string; part?: 'key' };
/** Each tool graded once (validate asks for the score and, with --quality, the findings); a loaded tool does not change. */
const gradedCache = new WeakMap<Tool, { quality: ToolQuality; findings: Finding[] }>();

function graded(tool: Tool): { quality: ToolQuality; findings: Finding[] } {
  let entry = gradedCache.get(tool);
  if (!entry) {
    const findings: Finding[] = [];
    const quality = assessTool(tool, (code, path, message, hint, part) => findings.push({ code, path, message, hint, ...(part ? { part } : {}) }));
    entry = { quality, findings };
    gradedCache.set(tool, entry);
  }
  return entry;
}

/** Tools whose definitions a model reads: not toolman's meta-tools, not providers' native tools (the provider describes those). */
function gradedTools(catalog: Catalog): Tool[] {
  return catalog.tools.filter((t) => t.source.kind !== 'meta' && !t.native);
}
