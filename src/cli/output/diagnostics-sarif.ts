import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { packageRoot } from '../../shared/package-root.js';
import type { Diagnostic } from '../../catalog/diagnostic.js';
import type { DiagnosticCode } from '../../catalog/diagnostic-codes.js';
import { DIAGNOSTIC_CODES } from '../../manager/facts.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

/**
 * SARIF 2.1.0 (OASIS), the format GitHub code scanning and other CI systems annotate pull
 * requests from. Written by hand: it is one plain object, and the builder packages on npm add a
 * filesystem dependency (and, in their current major, a Node 22 requirement) for no extra checks.
 */
export function toSarif(diagnostics: readonly Diagnostic[], version: string): Log {
  const codes = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];
  const docs = join(packageRoot(), 'docs', 'diagnostics.md');
  const help = ruleHelp(readFileSync(docs, 'utf8'));
  const rules: ReportingDescriptor[] = codes.map((code) => {
    const anchor = `${code}-${DIAGNOSTIC_CODES[code].name}`.toLowerCase();
    const text = help.get(code);
    return {
      id: code,
      name: DIAGNOSTIC_CODES[code].name,
      shortDescription: { text: DIAGNOSTIC_CODES[code].summary },
      ...(text ? { fullDescription: { text: text.split('\n\n')[0]! }, help: { text, markdown: text } } : {}),
      // The copy of docs/diagnostics.md that ships with this toolman.
      helpUri: `${pathToFileURL(docs).href}#${anchor}`,
      defaultConfiguration: { level: LEVEL[DIAGNOSTIC_CODES[code].severity] },
    };
  });
  const results: Result[] = diagnostics.map((d) => ({
    ruleId: d.code,
    ruleIndex: codes.indexOf(d.code),
    level: LEVEL[d.severity],
    message: { text: d.hint ? `${d.message} (hint: ${d.hint})` : d.message },
    locations: [
      {
        physicalLocation: {
          // Relative paths are relative to the checkout (%SRCROOT%); a file outside it gets its own file URL.
          artifactLocation: isAbsolute(d.file) ? { uri: pathToFileURL(d.file).href } : { uri: d.file.split('\\').join('/'), uriBaseId: '%SRCROOT%' },
          ...(d.line >= 1
            ? {
                region: {
                  startLine: d.line,
                  startColumn: d.column,
                  ...(d.endLine !== undefined && d.endColumn !== undefined && (d.endLine > d.line || d.endColumn > d.column) ? { endLine: d.endLine, endColumn: d.endColumn } : {}),
                },
              }
            : {}),
        },
        ...(d.pointer ? { logicalLocations: [{ fullyQualifiedName: d.pointer, kind: 'member' }] } : {}),
      },
    ],
  }));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'toolman', version, rules } },
        results,
      },
    ],
  };
}

/** Each code's section of docs/diagnostics.md (what it means and how to fix it), without the severity line. */
function ruleHelp(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const section of markdown.split(/^### /m).slice(1)) {
    const [heading, ...body] = section.split('\n');
    const code = /^(TM\d{4})\b/.exec(heading ?? '')?.[1];
    if (!code) continue;
    const text = body.join('\n').split(/^## /m)[0]!.replace(/^Severity:.*$/m, '').trim();
    out.set(code, text);
  }
  return out;
}
