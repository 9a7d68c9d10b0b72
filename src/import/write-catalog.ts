import { dump } from 'js-yaml';
import type { ImportResult } from './import-tools.js';

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
  const document = {
    toolman: 1,
    name: options.name,
    description: `Imported from ${options.source} (${result.format})`,
    tools: result.tools.map((t) => t.entry),
  };
  const yaml = dump(document, { lineWidth: 120, noRefs: true });
  const notes = new Map(result.tools.map((t) => [t.entry.name as string, t.changes]));
  const lines: string[] = [`# yaml-language-server: $schema=${options.schemaPath}`, `# Imported by toolman from ${options.source} (${result.format}).`];
  for (const line of yaml.split('\n')) {
    const match = /^ {2}- name: (?:"([^"]+)"|(\S+))$/.exec(line);
    const changes = match ? notes.get(match[1] ?? match[2]!) : undefined;
    if (changes?.length) for (const change of changes) lines.push(`  # import: ${change}`);
    lines.push(line);
  }
  return lines.join('\n');
}
