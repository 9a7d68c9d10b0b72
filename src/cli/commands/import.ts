import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { load } from 'js-yaml';
import { describeFsError } from '../../shared/fs-errors.js';
import { summarize } from '../../catalog/diagnostic.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { IMPORT_FORMATS, type ImportFormat } from '../../import/detect-format.js';
import { importTools } from '../../import/import-tools.js';
import { catalogText } from '../../import/write-catalog.js';
import { packageRoot } from '../../shared/package-root.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';

export interface ImportOptions {
  file: string;
  output?: string;
  from?: string;
  name?: string;
  force?: boolean;
  json?: boolean;
  stdin?: () => Promise<string>;
}

function readInput(file: string, io: CliIO): string {
  try {
    return readFileSync(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `cannot read ${file}: ${describeFsError(error)}`);
  }
}

function parseInput(text: string, file: string): unknown {
  const trimmed = text.trimStart();
  try {
    if (extname(file) === '.json' || trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(text);
    return load(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ToolmanError(ErrorCode.USAGE, `${file} is not valid JSON or YAML: ${message}`);
  }
}

/** `toolman import FILE [-o catalog.yaml]`: tool definitions from another format into a catalog. */
export async function importCommand(options: ImportOptions, io: CliIO): Promise<ExitCode> {
  if (options.from !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(options.from)) {
    throw new ToolmanError(ErrorCode.USAGE, `unknown format "${options.from}"`, { hint: `formats: ${IMPORT_FORMATS.join(', ')}` });
  }
  const text = options.file === '-' ? await (options.stdin?.() ?? Promise.resolve('')) : readInput(options.file, io);
  const source = options.file === '-' ? 'stdin' : basename(options.file);
  const result = importTools(parseInput(text, options.file === '-' ? 'standard input' : options.file), options.from ? { from: options.from as ImportFormat } : {});
  if (result.tools.length === 0) {
    throw new ToolmanError(ErrorCode.USAGE, `no tool definitions found in ${source}`, { hint: `expected a list of tools or an object with tools, functions or functionDeclarations (--from ${IMPORT_FORMATS.join('|')})` });
  }

  const output = options.output ? resolve(io.cwd, options.output) : undefined;
  if (output && existsSync(output) && !options.force) {
    throw new ToolmanError(ErrorCode.USAGE, `${options.output} exists; not overwriting it`, { hint: 'pass --force to replace it, or choose another -o' });
  }
  const schemaFile = join(packageRoot(), 'schema', 'catalog.schema.json');
  const yaml = catalogText(result, {
    name: options.name ?? basename(options.file, extname(options.file)).replace(/[^a-zA-Z0-9_-]+/g, '-') ?? 'imported',
    source,
    schemaPath: relative(dirname(output ?? join(io.cwd, 'catalog.yaml')), schemaFile).split('\\').join('/'),
  });
  if (output) writeFileSync(output, yaml);

  // Check what was written, as `validate` would.
  let summary;
  if (output) summary = summarize(await withManager(io, [output], (manager) => manager.validate(), { requireValid: false }));

  const renamed = result.tools.filter((t) => t.entry.name !== t.original).length;
  const kinds = new Map<string, number>();
  for (const tool of result.tools) for (const change of tool.changes) kinds.set(generalize(change), (kinds.get(generalize(change)) ?? 0) + 1);

  if (options.json) {
    io.stdout.write(
      JSON.stringify(
        {
          format: result.format,
          output: options.output ?? null,
          tools: result.tools.map((t) => ({ name: t.entry.name, original: t.original, changes: t.changes })),
          skipped: result.skipped,
          ...(summary ? { validation: summary } : { yaml }),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    if (!output) io.stdout.write(yaml);
    const c = palette(colorEnabled(io, io.stderr));
    io.stderr.write(`${c.green('✔')} imported ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'} from ${source} (${result.format})${output ? ` into ${options.output}` : ''}; ${renamed} renamed\n`);
    for (const [kind, count] of [...kinds].sort((a, b) => b[1] - a[1])) io.stderr.write(`  ${String(count).padStart(5)} × ${kind}\n`);
    if (result.skipped.length) io.stderr.write(`  skipped ${result.skipped.length} entries that are not tools (items ${result.skipped.map((s) => s.index).join(', ')})\n`);
    if (summary) io.stderr.write(`  validate: ${summary.errors} errors, ${summary.warnings} warnings, ${summary.infos} infos (run toolman validate ${options.output})\n`);
    if (output) io.stderr.write(c.dim('  each tool\'s changes are recorded as "# import:" comments above it\n'));
  }
  return summary && summary.errors > 0 ? EXIT.FAILURE : EXIT.OK;
}

/** Groups change notes by kind for the summary ("renamed from \"a.b\"..." -> "renamed ..."). */
function generalize(change: string): string {
  return change.startsWith('renamed from') ? change.replace(/"[^"]*"/, '"…"') : change.replace(/\(https?:[^)]*\)/, '(…)');
}
