import { detectFormat, IMPORT_FORMATS, toolEntries, type ImportFormat } from './detect-format.js';
import { normalizeParameters } from './normalize-schema.js';
import { isProviderSafe, providerSafeName, renameReason } from '../providers/tool-names.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { META_TOOL_NAMES } from '../catalog/types.js';
import { isRecord } from '../shared/is-record.js';
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
  const taken = new Set([...META_TOOL_NAMES, ...(options.taken ?? [])]);
  // Valid names are reserved first, so a renamed tool ("car.rental") never takes the name of a
  // tool that already had it ("car_rental").
  const reserved = new Set<string>();
  for (const raw of entries) {
    const source = isRecord(raw) ? unwrap(raw, format) : undefined;
    const name = typeof source?.name === 'string' ? source.name.trim() : '';
    if (isProviderSafe(name) && !taken.has(name)) reserved.add(name);
  }
  const tools: ImportedTool[] = [];
  const skipped: ImportResult['skipped'] = [];
  entries.forEach((raw, index) => {
    const source = isRecord(raw) ? unwrap(raw, format) : undefined;
    if (!source || typeof source.name !== 'string' || source.name.trim() === '') {
      skipped.push({ index, reason: 'not a tool definition with a name' });
      return;
    }
    // Everything after walks the schema recursively: a pathologically deep one is refused alone.
    if (nestsDeeperThan(source, MAX_JSON_DEPTH)) {
      skipped.push({ index, reason: `${JSON.stringify(source.name.slice(0, 80))} nests deeper than ${MAX_JSON_DEPTH} levels` });
      return;
    }
    tools.push(convert(source, format, taken, reserved));
  });
  return { format, tools, skipped };
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

function convert(source: Raw, format: ImportFormat, taken: Set<string>, reserved: Set<string>): ImportedTool {
  const original = (source.name as string).trim();
  const changes = new Set<string>();
  const ownReservation = reserved.delete(original);
  const reason = renameReason(original, taken);
  // Names reserved for later tools count as taken for this one.
  const name = providerSafeName(original, ownReservation ? taken : new Set([...taken, ...reserved]));
  taken.add(name);
  const entry: Raw = { name };
  if (name !== original) {
    entry.aliases = [original];
    changes.add(`renamed from "${original}" (${reason}); the original is kept in aliases`);
  }
  const annotations = isRecord(source.annotations) ? source.annotations : undefined;
  const title = typeof source.title === 'string' ? source.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
  if (title) {
    entry.title = title;
    if (format === 'mcp') changes.add('MCP title became title');
  }
  if (typeof source.description === 'string' && source.description.trim() !== '') entry.description = source.description.trim();
  else changes.add('no description in the source');
  if (format === 'mcp' || annotations) decideEffect(annotations, entry, changes);
  if (format === 'gemini' && source.parametersJsonSchema !== undefined) changes.add('parametersJsonSchema used as parameters');
  if (source.strict === true) changes.add('strict: true dropped (strict mode is a formatter option: toolman format --strict)');
  if (format === 'mcp' && source.outputSchema !== undefined) changes.add('outputSchema not imported (catalog tools describe inputs only)');
  if (Array.isArray(source.input_examples) && source.input_examples.length) {
    entry.examples = source.input_examples.filter(isRecord);
    changes.add('input_examples became examples');
  }
  const used = CONSUMED_FIELDS[format];
  for (const key of Object.keys(source)) if (!used.has(key)) changes.add(`dropped field ${JSON.stringify(key)} (the catalog has no place for it)`);
  entry.parameters = normalizeParameters(schemaOf(source, format), changes);
  return { entry, original, changes: [...changes] };
}
