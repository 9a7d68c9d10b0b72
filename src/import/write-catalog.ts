import { dump } from 'js-yaml';
import type { ImportResult } from './import-tools.js';
import { plainValue } from '../shared/plain-text.js';

export interface CatalogTextOptions {
  name: string;
  source: string;
  /** Path from the output file to schema/catalog.schema.json, for the editor hint. */
  schemaPath: string;
}

/**
 * The imported catalog as YAML. What the importer changed on each tool is written as comments
 * right above it, so the record stays with the catalog.
 */
export function catalogText(result: ImportResult, options: CatalogTextOptions): string {
  // What the file said reaches the model once it is a catalog: nothing invisible is written into it.
  const tools = result.tools.map((t) => ({ ...t, clean: plainValue(t.entry) }));
  const document = {
    toolman: 1,
    name: options.name,
    description: `Imported from ${options.source} (${result.format})`,
    tools: tools.map((t) => t.clean.value),
  };
  const yaml = dump(document, { lineWidth: 120, noRefs: true });
  const removed = 'invisible or control characters (zero-width, directional marks, Unicode tags, escapes) removed from its text';
  const notes = new Map(tools.map((t) => [t.clean.value.name as string, t.clean.changed && !t.changes.some((c) => c.startsWith('invisible')) ? [...t.changes, removed] : t.changes]));
  const lines: string[] = [`# yaml-language-server: $schema=${comment(options.schemaPath)}`, `# Imported by toolman from ${comment(options.source)} (${result.format}).`];
  for (const line of yaml.split('\n')) {
    const match = /^ {2}- name: (?:"([^"]+)"|(\S+))$/.exec(line);
    const changes = match ? notes.get(match[1] ?? match[2]!) : undefined;
    if (changes?.length) for (const change of changes) lines.push(`  # import: ${comment(change)}`);
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * Text from the imported file made safe for one comment line: notes quote names and values from
 * the input, and a line break there would end the comment and start YAML the input wrote (a whole
 * tool, say). Control characters and every character YAML 1.1 or 1.2 takes as a line break (NEL,
 * LS, PS) are written as \u escapes; the rest of a comment is never interpreted.
 */
export function comment(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
