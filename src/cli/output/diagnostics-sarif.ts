import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { packageRoot } from '../../shared/package-root.js';
import type { Diagnostic } from '../../catalog/diagnostic.js';
import type { DiagnosticCode } from '../../catalog/diagnostic-codes.js';
import { DIAGNOSTIC_CODES } from '../../manager/facts.js';
import type { CatalogQuality } from '../../validate/description-quality.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

/**
 * SARIF 2.1.0 (OASIS), the format GitHub code scanning and other CI systems annotate pull
 * requests from. Written by hand: it is one plain object, and the builder packages on npm add a
 * filesystem dependency (and, in their current major, a Node 22 requirement) for no extra checks.
 */
export function toSarif(diagnostics: readonly Diagnostic[], version: string, quality?: CatalogQuality): Log {
  const codes = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];
  const docs = join(packageRoot(), 'docs', 'diagnostics.md');
  const help = ruleHelp(readFileSync(docs, 'utf8'));
  const docsUrl = diagnosticsDocsUrl(JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as PackageJson);
  const rules: ReportingDescriptor[] = codes.map((code) => {
    const anchor = `${code}-${DIAGNOSTIC_CODES[code].name}`.toLowerCase();
    const text = help.get(code);
    return {
      id: code,
      name: DIAGNOSTIC_CODES[code].name,
      shortDescription: { text: DIAGNOSTIC_CODES[code].summary },
      ...(text ? { fullDescription: { text: text.split('\n\n')[0]! }, help: { text, markdown: text } } : {}),
      // Code scanning shows this link to everyone who reads the alert: the docs on the project's
      // repository (package.json), never a path on the machine that ran the scan.
      ...(docsUrl ? { helpUri: `${docsUrl}#${anchor}` } : {}),
      defaultConfiguration: { level: LEVEL[DIAGNOSTIC_CODES[code].severity], ...((DIAGNOSTIC_CODES[code] as { optIn?: true }).optIn ? { enabled: false } : {}) },
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
        tool: { driver: { name: 'toolman', version, ...(docsUrl ? { informationUri: docsUrl.replace(/\/(?:blob|src|-\/blob)\/HEAD\/docs\/diagnostics\.md$|\/docs\/diagnostics\.md$/, '') } : {}), rules } },
        results,
        // Description quality (docs/diagnostics.md, 11xx): the catalog's score and each tool's, with the criteria met.
        ...(quality ? { properties: { toolman: { descriptionQuality: quality } } } : {}),
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

interface PackageJson {
  repository?: string | { url?: string };
  homepage?: string;
}

/**
 * Where docs/diagnostics.md is on the web, from package.json: a blob URL on the repository's host
 * (GitHub, GitLab, Bitbucket) at its default branch, else the homepage's docs/ folder, else none
 * (SARIF's helpUri is optional; the rule's help text is in the log itself).
 */
export function diagnosticsDocsUrl(pkg: PackageJson): string | undefined {
  const raw = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (raw) {
    const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+)\/([\w.-]+)$/.exec(raw);
    const url = shorthand ? `https://${shorthand[1] ?? 'github'}.${shorthand[1] === 'bitbucket' ? 'org' : 'com'}/${shorthand[2]}/${shorthand[3]}` : raw.replace(/^git\+/, '').replace(/^git@([^:]+):/, 'https://$1/').replace(/^(?:git|ssh):\/\/(?:git@)?/, 'https://');
    const match = /^https?:\/\/(github\.com|gitlab\.com|bitbucket\.org)\/([^/]+)\/([^/#?]+?)(?:\.git)?\/?$/.exec(url);
    if (match) {
      const [, host, owner, repo] = match;
      const path = host === 'gitlab.com' ? '-/blob/HEAD' : host === 'bitbucket.org' ? 'src/HEAD' : 'blob/HEAD';
      return `https://${host}/${owner}/${repo}/${path}/docs/diagnostics.md`;
    }
  }
  if (pkg.homepage && /^https?:\/\//.test(pkg.homepage)) return `${pkg.homepage.replace(/#.*$/, '').replace(/\/+$/, '')}/docs/diagnostics.md`;
  return undefined;
}
