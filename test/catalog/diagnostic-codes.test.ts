import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from '../../src/catalog/diagnostic-codes.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'diagnostics');
const rel = (file: string) => `test/fixtures/diagnostics/${file}`;

/** fixture, expected code, severity, and where: the file (when an included one) and line:column. */
const CASES: { fixture: string; code: DiagnosticCode; severity: string; line: number; column: number; file?: string }[] = [
  { fixture: 'TM0001-yaml-syntax.yaml', code: 'TM0001', severity: 'error', line: 5, column: 3 },
  { fixture: 'TM0002-duplicate-key.yaml', code: 'TM0002', severity: 'error', line: 5, column: 5 },
  { fixture: 'TM0003-alias-limit.yaml', code: 'TM0003', severity: 'error', line: 3, column: 8 },
  { fixture: 'TM0004-include-missing.yaml', code: 'TM0004', severity: 'error', line: 3, column: 5 },
  { fixture: 'TM0005-include-cycle.yaml', code: 'TM0005', severity: 'error', line: 2, column: 11, file: rel('includes/cycle-b.yaml') },
  { fixture: 'TM0006-not-a-catalog.yaml', code: 'TM0006', severity: 'error', line: 1, column: 1 },
  { fixture: 'TM0101-unknown-key.yaml', code: 'TM0101', severity: 'error', line: 4, column: 5 },
  { fixture: 'TM0102-wrong-type.yaml', code: 'TM0102', severity: 'error', line: 5, column: 17 },
  { fixture: 'TM0103-bad-value.yaml', code: 'TM0103', severity: 'error', line: 5, column: 13 },
  { fixture: 'TM0104-missing-key.yaml', code: 'TM0104', severity: 'error', line: 3, column: 5 },
  { fixture: 'TM0105-schema-violation.yaml', code: 'TM0105', severity: 'error', line: 5, column: 5 },
  { fixture: 'TM0201-duplicate-tool.yaml', code: 'TM0201', severity: 'error', line: 3, column: 11, file: rel('includes/one-tool.yaml') },
  { fixture: 'TM0202-invalid-tool-name.yaml', code: 'TM0202', severity: 'error', line: 3, column: 11 },
  { fixture: 'TM0203-gemini-tool-name.yaml', code: 'TM0203', severity: 'warning', line: 3, column: 11 },
  { fixture: 'TM0204-missing-description.yaml', code: 'TM0204', severity: 'warning', line: 3, column: 5 },
  { fixture: 'TM0205-short-description.yaml', code: 'TM0205', severity: 'warning', line: 4, column: 18 },
  { fixture: 'TM0206-long-description.yaml', code: 'TM0206', severity: 'warning', line: 4, column: 18 },
  { fixture: 'TM0207-undiscoverable-deferred-tool.yaml', code: 'TM0207', severity: 'warning', line: 5, column: 20 },
  { fixture: 'TM0208-duplicate-definition.yaml', code: 'TM0208', severity: 'error', line: 3, column: 3, file: rel('includes/profile-b.yaml') },
  { fixture: 'TM0209-reserved-tool-name.yaml', code: 'TM0209', severity: 'error', line: 3, column: 11 },
  { fixture: 'TM0210-alias-shadowed.yaml', code: 'TM0210', severity: 'error', line: 7, column: 15 },
  { fixture: 'TM0301-invalid-parameters-schema.yaml', code: 'TM0301', severity: 'error', line: 8, column: 23 },
  { fixture: 'TM0301-strict-mode.yaml', code: 'TM0301', severity: 'error', line: 8, column: 55 },
  { fixture: 'TM0302-parameters-not-object.yaml', code: 'TM0302', severity: 'error', line: 6, column: 13 },
  { fixture: 'TM0303-required-not-property.yaml', code: 'TM0303', severity: 'error', line: 9, column: 25 },
  { fixture: 'TM0304-property-without-description.yaml', code: 'TM0304', severity: 'warning', line: 8, column: 9 },
  { fixture: 'TM0305-unresolved-ref.yaml', code: 'TM0305', severity: 'error', line: 8, column: 25 },
  { fixture: 'TM0306-empty-enum.yaml', code: 'TM0306', severity: 'error', line: 8, column: 38 },
  { fixture: 'TM0307-duplicate-enum-value.yaml', code: 'TM0307', severity: 'error', line: 8, column: 50 },
  { fixture: 'TM0308-invalid-example.yaml', code: 'TM0308', severity: 'error', line: 12, column: 35 },
  { fixture: 'TM0309-unsupported-pattern.yaml', code: 'TM0309', severity: 'error', line: 8, column: 38 },
  { fixture: 'TM0330-invalid-output-schema.yaml', code: 'TM0330', severity: 'error', line: 12, column: 23 },
  { fixture: 'TM0331-output-schema-not-object.yaml', code: 'TM0331', severity: 'info', line: 6, column: 13 },
  { fixture: 'TM0332-mock-result-not-output.yaml', code: 'TM0332', severity: 'error', line: 16, column: 19 },
  { fixture: 'TM0310-invalid-default.yaml', code: 'TM0310', severity: 'warning', line: 8, column: 62 },
  { fixture: 'TM0311-empty-range.yaml', code: 'TM0311', severity: 'error', line: 8, column: 33 },
  { fixture: 'TM0401-openai-strict-lossy.yaml', code: 'TM0401', severity: 'info', line: 8, column: 32 },
  { fixture: 'TM0402-openai-strict-impossible.yaml', code: 'TM0402', severity: 'info', line: 11, column: 33 },
  // The recursive $ref itself (items of children), not the first $ref that leads into the recursion.
  { fixture: 'TM0403-gemini-recursive-schema.yaml', code: 'TM0403', severity: 'warning', line: 15, column: 53 },
  { fixture: 'TM0404-gemini-mixed-enum.yaml', code: 'TM0404', severity: 'warning', line: 8, column: 24 },
  { fixture: 'TM0405-tool-count-over-limit.yaml', code: 'TM0405', severity: 'warning', line: 2, column: 1 },
  { fixture: 'TM0501-exclusive-deferred.yaml', code: 'TM0501', severity: 'error', line: 7, column: 20 },
  { fixture: 'TM0502-takes-control-background.yaml', code: 'TM0502', severity: 'error', line: 6, column: 11 },
  { fixture: 'TM0503-destructive-never-confirmed.yaml', code: 'TM0503', severity: 'warning', line: 6, column: 14 },
  { fixture: 'TM0601-unknown-profile.yaml', code: 'TM0601', severity: 'error', line: 7, column: 14 },
  { fixture: 'TM0602-profile-cycle.yaml', code: 'TM0602', severity: 'error', line: 6, column: 17 },
  { fixture: 'TM0603-pattern-matches-nothing.yaml', code: 'TM0603', severity: 'warning', line: 8, column: 12 },
  { fixture: 'TM0604-invalid-pattern.yaml', code: 'TM0604', severity: 'error', line: 8, column: 15 },
  { fixture: 'TM0605-override-matches-nothing.yaml', code: 'TM0605', severity: 'warning', line: 6, column: 5 },
  { fixture: 'TM0701-handler-kind.yaml', code: 'TM0701', severity: 'error', line: 6, column: 7 },
  { fixture: 'TM0702-exec-argv-string.yaml', code: 'TM0702', severity: 'error', line: 6, column: 21 },
  { fixture: 'TM0703-module-missing.yaml', code: 'TM0703', severity: 'error', line: 6, column: 15 },
  { fixture: 'TM0704-invalid-url.yaml', code: 'TM0704', severity: 'error', line: 10, column: 20 },
  { fixture: 'TM0705-unknown-template-variable.yaml', code: 'TM0705', severity: 'warning', line: 11, column: 19 },
  { fixture: 'TM0706-native-tool-handler.yaml', code: 'TM0706', severity: 'error', line: 7, column: 7 },
  { fixture: 'TM0707-mock-when-not-parameter.yaml', code: 'TM0707', severity: 'warning', line: 8, column: 19 },
  { fixture: 'TM0708-exec-program-from-argument.yaml', code: 'TM0708', severity: 'error', line: 7, column: 22 },
  { fixture: 'TM0709-exec-option-injection.yaml', code: 'TM0709', severity: 'warning', line: 7, column: 43 },
  { fixture: 'TM0710-invalid-mock-matcher.yaml', code: 'TM0710', severity: 'error', line: 11, column: 30 },
  { fixture: 'TM0711-path-outside-catalog.yaml', code: 'TM0711', severity: 'warning', line: 6, column: 15 },
  { fixture: 'TM0730-config-without-plugin.yaml', code: 'TM0730', severity: 'error', line: 7, column: 7 },
  { fixture: 'TM0731-stateful-handler.yaml', code: 'TM0731', severity: 'error', line: 6, column: 11 },
  { fixture: 'TM0732-stateful-takes-control.yaml', code: 'TM0732', severity: 'error', line: 7, column: 20 },
  { fixture: 'TM0733-yields-not-stateful.yaml', code: 'TM0733', severity: 'warning', line: 8, column: 11 },
  { fixture: 'TM0734-stateful-exclusive.yaml', code: 'TM0734', severity: 'warning', line: 7, column: 16 },
  { fixture: 'TM0735-plugin-spec.yaml', code: 'TM0735', severity: 'error', line: 6, column: 15 },
  { fixture: 'TM0736-stateful-result-rules.yaml', code: 'TM0736', severity: 'warning', line: 7, column: 5 },
  { fixture: 'TM0832-mcp-oauth-not-http.yaml', code: 'TM0832', severity: 'error', line: 5, column: 5 },
  { fixture: 'TM0833-mcp-root-not-folder.yaml', code: 'TM0833', severity: 'warning', line: 5, column: 16 },
  { fixture: 'TM0901-agent-unknown-profile.yaml', code: 'TM0901', severity: 'error', line: 5, column: 38 },
  { fixture: 'TM0903-agent-calls-itself.yaml', code: 'TM0903', severity: 'info', line: 5, column: 38 },
  { fixture: 'TM1001-confusable-tools.yaml', code: 'TM1001', severity: 'warning', line: 4, column: 18 },
  { fixture: 'TM1101-no-usage-guidance.yaml', code: 'TM1101', severity: 'info', line: 5, column: 18 },
  { fixture: 'TM1102-no-return-description.yaml', code: 'TM1102', severity: 'info', line: 5, column: 18 },
  { fixture: 'TM1103-destructive-effect-unstated.yaml', code: 'TM1103', severity: 'info', line: 5, column: 18 },
  { fixture: 'TM1104-parameter-format-unstated.yaml', code: 'TM1104', severity: 'info', line: 10, column: 9 },
  { fixture: 'TM1105-description-restates-name.yaml', code: 'TM1105', severity: 'info', line: 5, column: 18 },
  { fixture: 'TM1201-hidden-text.yaml', code: 'TM1201', severity: 'error', line: 4, column: 18 },
  { fixture: 'TM1202-invisible-characters.yaml', code: 'TM1202', severity: 'warning', line: 9, column: 23 },
  { fixture: 'TM1203-instructions-to-model.yaml', code: 'TM1203', severity: 'warning', line: 4, column: 18 },
  { fixture: 'TM1204-tool-shadowing.yaml', code: 'TM1204', severity: 'warning', line: 6, column: 18, file: rel('includes/imported-mailer.yaml') },
  { fixture: 'TM1205-secret-parameter.yaml', code: 'TM1205', severity: 'warning', line: 9, column: 9 },
  { fixture: 'TM1206-effect-contradicts-text.yaml', code: 'TM1206', severity: 'warning', line: 5, column: 13 },
  { fixture: 'TM1301-client-tool-limit.yaml', code: 'TM1301', severity: 'warning', line: 3, column: 1 },
  { fixture: 'TM1302-client-schema-quirk.yaml', code: 'TM1302', severity: 'warning', line: 4, column: 5 },
  { fixture: 'TM1401-unknown-evaluation.yaml', code: 'TM1401', severity: 'error', line: 5, column: 28 },
  { fixture: 'TM1402-evaluation-kind.yaml', code: 'TM1402', severity: 'error', line: 10, column: 3 },
  { fixture: 'TM1403-invalid-evaluation-regex.yaml', code: 'TM1403', severity: 'error', line: 11, column: 16 },
  { fixture: 'TM1404-invalid-evaluation-schema.yaml', code: 'TM1404', severity: 'error', line: 11, column: 39 },
  { fixture: 'TM1405-unused-evaluation.yaml', code: 'TM1405', severity: 'warning', line: 9, column: 3 },
  { fixture: 'TM1406-invalid-reference-selector.yaml', code: 'TM1406', severity: 'error', line: 5, column: 26 },
  { fixture: 'TM1407-resource-links-not-mcp.yaml', code: 'TM1407', severity: 'warning', line: 5, column: 17 },
  { fixture: 'TM1408-summarize-without-model.yaml', code: 'TM1408', severity: 'error', line: 6, column: 17 },
  { fixture: 'TM1409-evaluation-option-ignored.yaml', code: 'TM1409', severity: 'warning', line: 12, column: 12 },
  { fixture: 'TM1410-references-find-nothing.yaml', code: 'TM1410', severity: 'warning', line: 5, column: 17 },
  { fixture: 'TM1411-mock-result-fails-evaluation.yaml', code: 'TM1411', severity: 'warning', line: 8, column: 19 },
  { fixture: 'TM1412-summarize-unused.yaml', code: 'TM1412', severity: 'info', line: 3, column: 3 },
  { fixture: 'TM1420-exec-result-not-json.yaml', code: 'TM1420', severity: 'warning', line: 12, column: 13 },
];

describe('every diagnostic code has a fixture that triggers it', () => {
  it.each(CASES)('$fixture reports $code at $line:$column', async ({ fixture, code, severity, line, column, file }) => {
    const { diagnostics } = await validateCatalog([rel(fixture)], { cwd: ROOT });
    const found = diagnostics.filter((d) => d.code === code);
    expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity, line, column, file: file ?? rel(fixture) });
    // A fixture demonstrates one problem: nothing else is an error unless it is the point.
    const otherErrors = diagnostics.filter((d) => d.code !== code && d.severity === 'error');
    expect(otherErrors).toEqual([]);
  });

  it('covers every code in the table, and every fixture is in the cases', () => {
    // TM080x and TM0830/TM0831 need a running MCP server: test/mcp/ triggers each; the
    // lock's (085x) have their fixtures under test/fixtures/lock/ (test/lock/lock-diagnostics.test.ts); the plugins'
    // (074x) need the plugin loaded: test/fixtures/plugins/, triggered by test/execute/plugins.test.ts.
    const covered = new Set<string>([...CASES.map((c) => c.code), 'TM0740', 'TM0741', 'TM0742', 'TM0743', 'TM0744', 'TM0801', 'TM0802', 'TM0803', 'TM0804', 'TM0830', 'TM0831', 'TM0850', 'TM0851', 'TM0852', 'TM0853', 'TM0854', 'TM0855', 'TM0856', 'TM0857']);
    expect(Object.keys(DIAGNOSTIC_CODES).filter((code) => !covered.has(code as DiagnosticCode))).toEqual([]);
    const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(CASES.map((c) => c.fixture).sort());
  });

  it('documents every code in docs/diagnostics.md', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'diagnostics.md'), 'utf8');
    for (const [code, info] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(docs, code).toContain(`### ${code} ${info.name}`);
    }
  });
});
