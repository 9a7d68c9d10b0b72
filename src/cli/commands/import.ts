import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { DEFAULT_MAX_BYTES, FileReadError, formatBytes, readBoundedStream, readRegularFile } from '../../shared/read-file.js';
import type { Diagnostic } from '../../catalog/diagnostic.js';
import { SourceFile } from '../../manager/documents.js';
import { summarize } from '../../manager/facts.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { catalogText, IMPORT_FORMATS, importTools, type ImportFormat } from '../../manager/imports.js';
import { packageRoot } from '../../shared/package-root.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { writePrivateFile } from '../../shared/output-file.js';
import { parseJsonText } from '../../shared/json-text.js';
import { jsonDocument } from '../output/json-document.js';
import { plainText } from '../output/terminal-text.js';

export interface ImportOptions {
  file: string;
  output?: string;
  from?: string;
  name?: string;
  force?: boolean;
  json?: boolean;
  /** Snapshot a running MCP server (`--mcp`): its command after `--`, or `url`. */
  mcp?: boolean;
  command?: string[];
  url?: string;
  env?: string[];
  header?: string[];
  /** Reads standard input for `-`; by default process.stdin, up to the input limit. */
  stdin?: () => Promise<string>;
}

/** Tool definitions to import: as large as a catalog may be, since they become one. */
const MAX_IMPORT_BYTES = DEFAULT_MAX_BYTES;

/** FILE, or standard input for `-`: a regular file, or a stream, of at most MAX_IMPORT_BYTES. */
async function readInput(options: ImportOptions, io: CliIO): Promise<string> {
  if (options.file !== '-') return readRegularFile(options.file, { cwd: io.cwd, maxBytes: MAX_IMPORT_BYTES });
  const text = options.stdin ? await options.stdin() : await readBoundedStream(process.stdin, { label: 'standard input', maxBytes: MAX_IMPORT_BYTES });
  // A reader passed in may not stop at the limit; what it read is still refused past it.
  if (Buffer.byteLength(text) > MAX_IMPORT_BYTES) {
    throw new FileReadError('standard input', `it holds more than ${formatBytes(MAX_IMPORT_BYTES)}, over the limit`);
  }
  return text;
}

/**
 * JSON, or YAML through the catalog loader's bounded parser (alias expansion and depth are
 * limited: a 1 KB alias bomb is refused, not expanded).
 */
function parseInput(text: string, file: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new ToolmanError(ErrorCode.USAGE, `${file} is empty`, { hint: 'give a JSON or YAML file of tool definitions' });
  if (extname(file) === '.json' || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    return parseJsonText(text, file);
  }
  const { file: parsed, diagnostics } = SourceFile.parse(file, file, text);
  const problem = diagnostics.find((d) => d.severity === 'error' && d.code !== 'TM0002');
  if (problem) throw new ToolmanError(ErrorCode.USAGE, `${file}:${problem.line}:${problem.column} is not valid YAML: ${problem.message}`, problem.hint ? { hint: problem.hint } : {});
  return parsed.data;
}

/** `toolman import FILE [-o catalog.yaml]`: tool definitions from another format into a catalog. */
export async function importCommand(options: ImportOptions, io: CliIO): Promise<ExitCode> {
  if (options.from !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(options.from)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown format "${options.from}"`, { hint: `formats: ${IMPORT_FORMATS.join(', ')}` });
  }
  if (options.file === '' && !options.mcp) throw new ToolmanError(ErrorCode.USAGE, 'name one file to import (or - for standard input)', { hint: 'or snapshot an MCP server: toolman import --mcp -o FILE -- COMMAND ARGS...' });
  const { data, source } = options.mcp ? await mcpInput(options, io) : { data: parseInput(await readInput(options, io), options.file === '-' ? 'standard input' : options.file), source: options.file === '-' ? 'stdin' : basename(options.file) };
  const result = importTools(data, options.mcp ? { from: 'mcp' } : options.from ? { from: options.from as ImportFormat } : {});
  if (result.tools.length === 0) {
    throw new ToolmanError(ErrorCode.USAGE, `no tool definitions found in ${source}`, { hint: `expected a list of tools or an object with tools, functions or functionDeclarations (--from ${IMPORT_FORMATS.join('|')})` });
  }

  const output = options.output ? resolve(io.cwd, options.output) : undefined;
  if (output && existsSync(output) && !options.force) {
    throw new ToolmanError(ErrorCode.USAGE, `${options.output} exists; not overwriting it`, { hint: 'pass --force to replace it, or choose another -o' });
  }
  const schemaFile = join(packageRoot(), 'schema', 'catalog.schema.json');
  const yaml = catalogText(result, {
    name: options.name ?? (options.mcp ? basename(options.output ?? 'mcp', extname(options.output ?? '')) : basename(options.file, extname(options.file))).replace(/[^a-zA-Z0-9_-]+/g, '-') ?? 'imported',
    source,
    schemaPath: relative(dirname(output ?? join(io.cwd, 'catalog.yaml')), schemaFile).split('\\').join('/'),
  });
  if (output) writePrivateFile(output, yaml, { label: '-o', mode: options.force ? 'replace' : 'new', scope: { cwd: io.cwd } });

  // Check what was written, as `validate` would (for standard output, a copy in a temporary folder).
  const checked = output ?? join(mkdtempSync(join(tmpdir(), 'toolman-import-')), 'catalog.yaml');
  if (!output) writePrivateFile(checked, yaml, { label: 'a copy to check', mode: 'new' });
  let diagnostics: Diagnostic[];
  try {
    diagnostics = await withManager(io, [checked], (manager) => manager.validate(), { requireValid: false });
  } finally {
    if (!output) rmSync(dirname(checked), { recursive: true, force: true });
  }
  const summary = summarize(diagnostics);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  // Tool poisoning (TM12xx) in what was imported is worth a word even when it is only a warning.
  const poisoning = diagnostics.filter((d) => d.code.startsWith('TM12') && d.severity !== 'error');
  // Provider-native tools never run in toolman: their effect means nothing, so they are counted apart.
  const effects = { read: 0, write: 0, destructive: 0, unset: 0, native: 0 };
  for (const tool of result.tools) effects[tool.entry.native ? 'native' : ((tool.entry.effect as 'read' | 'write' | 'destructive' | undefined) ?? 'unset')]++;

  const renamed = result.tools.filter((t) => t.entry.name !== t.original).length;
  const kinds = new Map<string, number>();
  for (const tool of result.tools) for (const change of tool.changes) kinds.set(generalize(change), (kinds.get(generalize(change)) ?? 0) + 1);

  if (options.json) {
    io.stdout.write(
      jsonDocument(
        {
          format: result.format,
          output: options.output ?? null,
          tools: result.tools.map((t) => ({ name: t.entry.name, original: t.original, changes: t.changes })),
          skipped: result.skipped,
          effects,
          validation: { ...summary, errors_found: errors.map((d) => ({ code: d.code, message: d.message, tool: d.tool ?? null, line: d.line, column: d.column })), poisoning_found: poisoning.map((d) => ({ code: d.code, message: d.message, tool: d.tool ?? null, line: d.line, column: d.column })) },
          ...(output ? {} : { yaml }),
        }) + '\n',
    );
  } else {
    if (!output) io.stdout.write(yaml);
    const c = palette(colorEnabled(io, io.stderr));
    const mark = errors.length ? c.red('✖') : c.green('✔');
    io.stderr.write(`${mark} imported ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'} from ${source} (${result.format})${output ? ` into ${options.output}` : ''}; ${renamed} renamed\n`);
    const byEffect = Object.entries(effects).filter(([, n]) => n > 0).map(([effect, n]) => `${n} ${effect === 'unset' ? 'with no effect given (write)' : effect === 'native' ? 'provider-native (run by the provider or your application, never by toolman)' : effect}`);
    io.stderr.write(`  effects: ${byEffect.join(', ')}${effects.destructive ? ' (destructive tools ask for confirmation)' : ''}\n`);
    // Notes and reasons quote names and values from the input: cleaned of control sequences for any output.
    for (const [kind, count] of [...kinds].sort((a, b) => b[1] - a[1])) io.stderr.write(`  ${String(count).padStart(5)} × ${plainText(kind)}\n`);
    if (result.skipped.length) {
      io.stderr.write(`  skipped ${result.skipped.length} ${result.skipped.length === 1 ? 'entry' : 'entries'}:\n`);
      for (const skip of result.skipped.slice(0, 10)) io.stderr.write(`    item ${skip.index}: ${plainText(skip.reason)}\n`);
      if (result.skipped.length > 10) io.stderr.write(`    … and ${result.skipped.length - 10} more\n`);
    }
    io.stderr.write(`  validate: ${formatCounts(summary)}${output ? ` (run toolman validate ${options.output})` : ''}\n`);
    for (const error of errors.slice(0, 10)) io.stderr.write(`  ${c.red('error')} ${error.code} ${output ? `${options.output}:${error.line}:${error.column} ` : ''}${plainText(error.message)}\n`);
    if (errors.length) io.stderr.write(`  ${c.red('the imported catalog does not validate')}: fix ${output ? options.output : 'the output'} (or the source) before using it\n`);
    for (const warning of poisoning.slice(0, 10)) io.stderr.write(`  ${c.yellow('warning')} ${warning.code} ${output ? `${options.output}:${warning.line}:${warning.column} ` : ''}${warning.message}\n`);
    if (poisoning.length > 10) io.stderr.write(`  … and ${poisoning.length - 10} more tool-poisoning warnings (run toolman validate)\n`);
    if (output) io.stderr.write(c.dim('  each tool\'s changes are recorded as "# import:" comments above it\n'));
  }
  return errors.length > 0 ? EXIT.FAILURE : EXIT.OK;
}

/**
 * A running server's tool list (`--mcp`), as a file holding its `tools/list` reply would give it:
 * one import path for both, so a snapshot notes what it drops (outputSchema, execution, ...) and
 * cleans what it must exactly as `toolman import FILE` does. And how to name it in notes.
 */
async function mcpInput(options: ImportOptions, io: CliIO): Promise<{ data: unknown; source: string }> {
  const [{ listAdHocTools }, { SecretSet }] = await Promise.all([import('../../manager/imports.js'), import('../../shared/secrets.js')]);
  const server = {
    ...(options.command?.length ? { command: options.command } : {}),
    ...(options.url !== undefined ? { url: options.url } : {}),
    ...(options.env?.length ? { env: options.env } : {}),
    ...(options.header?.length ? { headers: options.header } : {}),
  };
  const secrets = new SecretSet();
  const tools = await listAdHocTools(server, io.cwd, io.env, secrets);
  const source = secrets.redact(options.url ?? (options.command ?? []).join(' ')).replace(/[\u0000-\u001f\u007f]/g, '');
  return { data: { tools }, source: source.length > 120 ? `${source.slice(0, 117)}...` : source };
}

function formatCounts(summary: { errors: number; warnings: number; infos: number }): string {
  const n = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `${n(summary.errors, 'error')}, ${n(summary.warnings, 'warning')}, ${n(summary.infos, 'info')}`;
}

/** Groups change notes by kind for the summary ("renamed from \"a.b\"..." -> "renamed ..."). */
function generalize(change: string): string {
  return change.startsWith('renamed from') ? change.replace(/"[^"]*"/, '"…"') : change.replace(/\(https?:[^)]*\)/, '(…)');
}
