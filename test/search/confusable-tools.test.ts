import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { importTools } from '../../src/import/import-tools.js';
import { CONFUSABLE_THRESHOLD, confusablePairs } from '../../src/search/confusable-tools.js';
import { realData } from '../helpers/real-data.js';

const TMP = mkdtempSync(join(tmpdir(), 'toolman-confusable-'));
function toolsOf(file: string) {
  const { tools } = importTools(JSON.parse(readFileSync(realData(file), 'utf8')));
  const path = join(TMP, `${file.replace(/[/.]/g, '_')}.json`);
  writeFileSync(path, JSON.stringify({ toolman: 1, tools: tools.map((t) => t.entry) }));
  return loadCatalog([path]).catalog.tools;
}
const names = (pairs: { a: string; b: string }[]) => pairs.map((p) => [p.a, p.b].sort().join(' ~ '));

describe('[real data] confusable tools (TM1001)', () => {
  it("GitHub's 117 tools: flags the look-alike pairs and few others", () => {
    const tools = toolsOf('mcp/github-mcp-server.toolsnaps.json');
    const pairs = confusablePairs(tools);
    const all = (tools.length * (tools.length - 1)) / 2;
    expect(names(pairs)).toEqual(expect.arrayContaining([
      'add_issue_comment_reaction ~ add_pull_request_review_comment_reaction',
      'get_code_scanning_alert ~ get_secret_scanning_alert',
      'assign_copilot_to_issue ~ assign_copilot_to_issue_with_intent',
      'add_issue_comment_reaction ~ add_issue_reaction',
    ]));
    // Not every pair: at most a few in a thousand.
    expect(pairs.length).toBeGreaterThan(3);
    expect(pairs.length / all).toBeLessThan(0.002);
    for (const p of pairs) {
      expect(p.score).toBeGreaterThanOrEqual(CONFUSABLE_THRESHOLD);
      expect(p.shared_words.length).toBeGreaterThan(0);
    }
  });

  it('the filesystem server: list_directory and list_directory_with_sizes; Playwright: none', () => {
    expect(names(confusablePairs(toolsOf('mcp/server-filesystem.json')))).toEqual(['list_directory ~ list_directory_with_sizes']);
    expect(confusablePairs(toolsOf('mcp/playwright-mcp.default.json'))).toEqual([]);
  });
});

describe('TM1001 in validate', () => {
  it('a family of near-copies is one finding at its first tool; settings turn it off', async () => {
    const { validateCatalog } = await import('../../src/validate/validate-catalog.js');
    const tools = Array.from({ length: 6 }, (_, i) => `  - { name: export_report_${i}, description: Export the monthly sales report as a spreadsheet file for finance., parameters: { type: object, properties: { month: { type: string, description: Month. } } }, handler: { mock: [ { result: {} } ] } }`);
    const other = '  - { name: send_invoice, description: Email an invoice to a customer with the amount due and a payment link., parameters: { type: object, properties: { customer: { type: string, description: Customer. } } }, handler: { mock: [ { result: {} } ] } }';
    const file = join(TMP, 'family.yaml');
    writeFileSync(file, ['toolman: 1', 'tools:', ...tools, other, ''].join('\n'));
    const found = (await validateCatalog([file])).diagnostics.filter((d) => d.code === 'TM1001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ tool: 'export_report_0', severity: 'warning', line: 3 });
    expect(found[0]!.message).toContain('export_report_1, export_report_2, export_report_3, export_report_4 and 1 more (6 tools that read alike)');
    writeFileSync(file, ['toolman: 1', 'lint: { confusable-tools: off }', 'tools:', ...tools, ''].join('\n'));
    expect((await validateCatalog([file])).diagnostics.filter((d) => d.code === 'TM1001')).toEqual([]);
  });
});

describe('confusable tools: near-duplicate descriptions', () => {
  it('flags the same description under two names, even when retrieval ranks each name first', () => {
    const path = join(TMP, 'duplicates.yaml');
    writeFileSync(
      path,
      [
        'toolman: 1',
        'tools:',
        '  - { name: ping, description: "Checks that the service is up and answering requests.", parameters: { type: object, properties: {} } }',
        '  - { name: health, description: "Checks that the service is up and answering requests.", parameters: { type: object, properties: {} } }',
        '  - { name: list_users, description: "Lists the members of the workspace with their roles.", parameters: { type: object, properties: { limit: { type: integer } } } }',
        '  - { name: list_members, description: "Lists the members of the workspace with their roles.", parameters: { type: object, properties: { limit: { type: integer } } } }',
        '  - { name: get_invoice, description: "Fetches one invoice by its number, with lines and totals.", parameters: { type: object, properties: { number: { type: string } } } }',
        '',
      ].join('\n'),
    );
    const pairs = names(confusablePairs(loadCatalog([path]).catalog.tools));
    expect(pairs).toEqual(expect.arrayContaining(['health ~ ping', 'list_members ~ list_users']));
    expect(pairs.some((p) => p.includes('get_invoice'))).toBe(false);
  });
});
