import { detectFormat, IMPORT_FORMATS, toolEntries, type ImportFormat } from './detect-format.js';
import { nativeVerdict, type NativeVerdict } from './native-tools.js';
import { normalizeOutputSchema, normalizeParameters } from './normalize-schema.js';
import { isProviderSafe, providerSafeName, renameReason } from '../providers/tool-names.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { META_TOOL_NAMES } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth.js';

type Raw = Record<string, unknown>;

/** One imported tool in catalog form, with what the importer changed. */
export interface ImportedTool {
  /** The catalog entry (snake_case keys, as written to YAML). */
  entry: Raw;
  original: string;
  changes: string[];
}

export interface ImportResult {
  format: ImportFormat;
  tools: ImportedTool[];
  /** Entries that were not tools at all, by index, with why. */
  skipped: { index: number; reason: string }[];
}

export interface ImportOptions {
  from?: ImportFormat;
  /** Names already used (when importing into an existing catalog). */
  taken?: Iterable<string>;
}

/** Converts tool definitions from any supported format into catalog tool entries. */
export function importTools(data: unknown, options: ImportOptions = {}): ImportResult {
  const format = options.from ?? detectFormat(data);
  if (!format) {
    throw new ToolmanError(ErrorCode.USAGE, 'cannot tell what format these tool definitions are in', {
      hint: `name it with --from (${IMPORT_FORMATS.join(', ')})`,
    });
  }
  const { entries } = toolEntries(data);
  // toolman's meta-tool names are taken from the start (BFCL has a "tool_search" of its own).
  const existing = new Set(options.taken ?? []);
  const taken = new Set([...META_TOOL_NAMES, ...existing]);
  const naming: Naming = { taken, reserved: new Set(), existing, aliases: new Set() };
  // Each entry once: a provider's own tool (web search...), a tool definition, or neither.
  const kinds = entries.map((raw): Entry => {
    if (!isRecord(raw)) return { kind: 'none' };
    const verdict = nativeVerdict(raw, format);
    if (verdict) return verdict;
    const source = unwrap(raw, format);
    return source && typeof source.name === 'string' && source.name.trim() !== '' ? { kind: 'tool', source } : { kind: 'none' };
  });
  // Valid names are reserved first, so a renamed tool ("car.rental") never takes the name of a
  // tool that already had it ("car_rental").
  for (const entry of kinds) {
    const name = entry.kind === 'tool' ? (entry.source.name as string).trim() : entry.kind === 'native' ? entry.name : '';
    if (isProviderSafe(name) && !taken.has(name)) naming.reserved.add(name);
  }
  const tools: ImportedTool[] = [];
  const skipped: ImportResult['skipped'] = [];
  kinds.forEach((entry, index) => {
    if (entry.kind === 'none') {
      skipped.push({ index, reason: 'not a tool definition with a name' });
      return;
    }
    if (entry.kind === 'refused') {
      skipped.push({ index, reason: `${describeEntry(entries[index] as Raw)}: ${entry.reason}` });
      return;
    }
    if (entry.kind === 'native') {
      tools.push(convertNative(entry, naming));
      return;
    }
    // Everything after walks the schema recursively: a pathologically deep one is refused alone.
    if (nestsDeeperThan(entry.source, MAX_JSON_DEPTH)) {
      skipped.push({ index, reason: `${JSON.stringify((entry.source.name as string).slice(0, 80))} nests deeper than ${MAX_JSON_DEPTH} levels` });
      return;
    }
    tools.push(convert(entry.source, format, naming));
  });
  return { format, tools, skipped };
}

/** What one entry of the input is. */
type Entry = { kind: 'none' } | { kind: 'tool'; source: Raw } | NativeVerdict;

/** The names an import hands out: taken ones, valid ones reserved for their tools, and aliases given. */
interface Naming {
  taken: Set<string>;
  reserved: Set<string>;
  /** Names of the catalog imported into (`options.taken`): tools too, so no alias may shadow them. */
  existing: ReadonlySet<string>;
  aliases: Set<string>;
}

/**
 * The catalog name for `original` (provider-safe, unique), noting a rename. The original is kept
 * as an alias, so calls and patterns by the old name still reach the tool, unless that name is
 * another tool's (two tools named `a` become `a` and `a_2`, and an alias `a` on the second would
 * never reach it) or another tool's alias already: an alias never shadows a tool (TM0210).
 */
function assignName(original: string, naming: Naming, changes: Set<string>): { name: string; aliases?: string[] } {
  const { taken, reserved } = naming;
  const ownReservation = reserved.delete(original);
  const reason = renameReason(original, taken);
  // Names reserved for later tools count as taken for this one.
  const name = providerSafeName(original, ownReservation ? taken : new Set([...taken, ...reserved]));
  taken.add(name);
  if (name === original) return { name };
  const metaTool = (META_TOOL_NAMES as readonly string[]).includes(original);
  const otherTool = (taken.has(original) && !metaTool) || reserved.has(original) || naming.existing.has(original);
  if (otherTool || naming.aliases.has(original)) {
    changes.add(`renamed from "${original}" (${reason}); no alias: "${original}" is ${otherTool ? 'the name of another tool' : 'already the alias of another tool'}, which it would shadow`);
    return { name };
  }
  naming.aliases.add(original);
  changes.add(`renamed from "${original}" (${reason}); the original is kept in aliases`);
  return { name, aliases: [original] };
}

/** A provider-defined tool as a catalog tool with `native:` (no parameters: the provider defines them). */
function convertNative(verdict: Extract<NativeVerdict, { kind: 'native' }>, naming: Naming): ImportedTool {
  const changes = new Set<string>();
  const { name, aliases } = assignName(verdict.name, naming, changes);
  changes.add(verdict.note);
  const entry: Raw = { name, ...(aliases ? { aliases } : {}), description: verdict.description, native: { [verdict.provider]: verdict.definition } };
  return { entry, original: verdict.name, changes: [...changes] };
}

/** An entry as a refusal names it: its name, else its type or key. */
function describeEntry(raw: Raw): string {
  if (typeof raw.name === 'string') return JSON.stringify(raw.name.slice(0, 80));
  if (typeof raw.type === 'string') return `type ${JSON.stringify(raw.type.slice(0, 80))}`;
  return JSON.stringify(Object.keys(raw).slice(0, 3).join(', ').slice(0, 80));
}

/** The part of an entry that holds name, description and schema, per format. */
function unwrap(raw: Raw, format: ImportFormat): Raw | undefined {
  if (format === 'openai') return isRecord(raw.function) ? raw.function : raw.type === 'function' ? raw : raw;
  return raw;
}

function schemaOf(source: Raw, format: ImportFormat): unknown {
  switch (format) {
    case 'anthropic':
      return source.input_schema;
    case 'mcp':
      return source.inputSchema;
    case 'gemini':
      return source.parametersJsonSchema ?? source.parameters;
    default:
      return source.parameters ?? source.input_schema ?? source.inputSchema;
  }
}

/** Fields each format's tool entries are read from; any other field is noted as dropped. */
const COMMON_FIELDS = ['name', 'description', 'title', 'parameters', 'strict', 'type', 'annotations'];
const CONSUMED_FIELDS: Record<ImportFormat, ReadonlySet<string>> = {
  openai: new Set([...COMMON_FIELDS, 'function']),
  'openai-responses': new Set(COMMON_FIELDS),
  'openai-functions': new Set(COMMON_FIELDS),
  anthropic: new Set([...COMMON_FIELDS, 'input_schema', 'input_examples']),
  gemini: new Set([...COMMON_FIELDS, 'parametersJsonSchema']),
  mcp: new Set([...COMMON_FIELDS, 'inputSchema', 'outputSchema']),
  bfcl: new Set(COMMON_FIELDS),
};

/**
 * MCP's tool annotations as catalog fields, with the specification's defaults (MCP schema,
 * ToolAnnotations, 2025-06-18: readOnlyHint false; destructiveHint true, meaningful when the tool
 * is not read-only; idempotentHint false; openWorldHint true). A tool that says nothing may be
 * destructive, so it asks for confirmation. Each decision is noted with its reason; explicit
 * idempotent and open-world hints become tags, so profiles and policies can use them.
 */
function decideEffect(annotations: Raw | undefined, entry: Raw, changes: Set<string>): void {
  // A hint written as the text "true" or "false" is read as that boolean, and the note says so.
  const hints: Raw = { ...annotations };
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    const value = hints[key];
    if (value === undefined || typeof value === 'boolean') continue;
    if (typeof value === 'string' && /^\s*(true|false)\s*$/i.test(value)) {
      hints[key] = value.trim().toLowerCase() === 'true';
      changes.add(`${key} was the string ${JSON.stringify(value)}; read as ${String(hints[key])}`);
    } else {
      delete hints[key];
      changes.add(`${key} ${JSON.stringify(value)} is not a boolean; ignored (MCP's default applies)`);
    }
  }
  const readOnly = hints.readOnlyHint;
  const destructive = hints.destructiveHint;
  let effect: 'read' | 'write' | 'destructive';
  if (readOnly === true) {
    effect = 'read';
    changes.add('readOnlyHint: true became effect: read');
  } else if (destructive === false) {
    effect = 'write';
    changes.add('destructiveHint: false became effect: write');
  } else {
    effect = 'destructive';
    changes.add(
      destructive === true
        ? 'destructiveHint: true became effect: destructive'
        : annotations === undefined
          ? 'no annotations: by MCP\'s defaults (readOnlyHint false, destructiveHint true) it may be destructive, so effect: destructive'
          : 'no readOnlyHint or destructiveHint: by MCP\'s defaults it may be destructive, so effect: destructive',
    );
  }
  entry.effect = effect;
  const tags: string[] = [];
  if (hints.idempotentHint === true) tags.push('idempotent');
  if (hints.openWorldHint === true) tags.push('open-world');
  if (tags.length) {
    entry.tags = tags;
    changes.add(`${tags.map((t) => (t === 'idempotent' ? 'idempotentHint' : 'openWorldHint')).join(' and ')} became tags`);
  }
  for (const key of Object.keys(annotations ?? {})) {
    if (!['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].includes(key)) changes.add(`dropped annotation ${JSON.stringify(key)}`);
    else if ((key === 'idempotentHint' || key === 'openWorldHint') && hints[key] !== true && hints[key] !== undefined) changes.add(`${key}: ${JSON.stringify(hints[key])} noted (nothing to set)`);
  }
}

function convert(source: Raw, format: ImportFormat, naming: Naming): ImportedTool {
  const changes = new Set<string>();
  // An imported file or a server is untrusted: its text never carries control sequences into the catalog.
  const clean = (text: string, what: string) => {
    const plain = plainText(text);
    if (plain !== text) changes.add(`control characters removed from the ${what}`);
    return plain.trim();
  };
  const original = clean(source.name as string, 'name');
  const { name, aliases } = assignName(original, naming, changes);
  const entry: Raw = { name, ...(aliases ? { aliases } : {}) };
  const annotations = isRecord(source.annotations) ? source.annotations : undefined;
  const title = typeof source.title === 'string' ? source.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
  if (title) {
    entry.title = clean(title, 'title');
    if (format === 'mcp') changes.add('MCP title became title');
  }
  const description = typeof source.description === 'string' ? clean(source.description, 'description') : '';
  if (description !== '') entry.description = description;
  else changes.add('no description in the source');
  if (format === 'mcp' || annotations) decideEffect(annotations, entry, changes);
  if (format === 'gemini' && source.parametersJsonSchema !== undefined) changes.add('parametersJsonSchema used as parameters');
  if (source.strict === true) changes.add('strict: true dropped (strict mode is a formatter option: toolman format --strict)');
  if (Array.isArray(source.input_examples) && source.input_examples.length) {
    entry.examples = source.input_examples.filter(isRecord);
    changes.add('input_examples became examples');
  }
  const used = CONSUMED_FIELDS[format];
  for (const key of Object.keys(source)) if (!used.has(key)) changes.add(`dropped field ${JSON.stringify(key)} (the catalog has no place for it)`);
  entry.parameters = normalizeParameters(schemaOf(source, format), changes);
  if (format === 'mcp' && source.outputSchema !== undefined) {
    // Its own notes: what normalising the output schema changed is not a change of the parameters.
    const outputChanges = new Set<string>();
    const output = normalizeOutputSchema(source.outputSchema, outputChanges);
    if (output) entry.output_schema = output;
    changes.add(output ? 'outputSchema became output_schema (results are checked against it)' : [...outputChanges][0]!);
    if (output) for (const change of outputChanges) changes.add(`output_schema: ${change}`);
  }
  return { entry, original, changes: [...changes] };
}
