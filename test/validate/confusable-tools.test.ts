import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confusablePairs, type ToolText } from '../../src/validate/confusable-pairs.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { labelledPairs, metrics, scoreLabelledSet, sourceTools } from '../helpers/confusable-labelled-set.js';
import { CATALOGS, ROOT } from '../helpers/paths.js';

const TMP = mkdtempSync(join(tmpdir(), 'toolman-confusable-'));
const names = (pairs: { a: string; b: string }[]) => pairs.map((p) => [p.a, p.b].sort().join(' ~ '));
const tool = (name: string, description: string, params: string[] = []): ToolText => ({ name, description, parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string', description: p }])) } });

async function tm1001(yaml: string) {
  const file = join(TMP, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  return (await validateCatalog([file])).diagnostics.filter((d) => d.code === 'TM1001');
}
const entry = (name: string, description: string, params: string[]) =>
  `  - name: ${name}\n    description: ${JSON.stringify(description)}\n    parameters: { type: object, properties: { ${params.map((p) => `${p}: { type: string, description: ${p} }`).join(', ')} } }\n    handler: { mock: [ { result: {} } ] }`;

describe('TM1001: the paraphrases the issue names are found, at any catalog size', () => {
  it('search_orders and find_orders in a 3-tool catalog (the old rule missed them)', async () => {
    const found = await tm1001(
      ['toolman: 1', 'tools:', entry('search_orders', "Search the customer's orders by keyword and return the matching orders.", ['query']), entry('find_orders', 'Find orders of the customer that match a keyword and return them.', ['query']), entry('send_invoice', 'Email an invoice to a customer with the amount due and a payment link.', ['customer']), ''].join('\n'),
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('find_orders');
  });

  it("the filesystem server's read_file (deprecated in favour of read_text_file) next to read_text_file", () => {
    const pairs = names(confusablePairs(sourceTools('mcp/server-filesystem.json')));
    expect(pairs).toContain('read_file ~ read_text_file');
    // Read vs write, one file vs many, text vs media: told apart.
    for (const distinct of ['read_text_file ~ write_file', 'read_multiple_files ~ read_text_file', 'read_media_file ~ read_text_file']) expect(pairs).not.toContain(distinct);
  });

  it('two paraphrased descriptions inside a 14-tool selection of real tools', () => {
    const github = sourceTools('mcp/github-mcp-server.toolsnaps.json').filter((t) => /issue/.test(t.name)).slice(0, 12);
    const pairs = confusablePairs([...github, tool('open_incident', 'Open a new incident for the on-call team, with a title and a severity.', ['title', 'severity']), tool('declare_incident', 'Declare an incident with a severity and a title, and page the on-call team.', ['title', 'severity'])]);
    expect(github.length + 2).toBe(14);
    expect(names(pairs)).toContain('declare_incident ~ open_incident');
  });

  it('stays quiet on related-but-distinct tools: another object, another action, opposites', () => {
    const tools = [
      tool('get_weather', 'Get the current weather for a city: temperature, wind and conditions.', ['city']),
      tool('get_air_quality', 'Get the current air quality index for a city, with the main pollutants.', ['city']),
      tool('create_ticket', 'Create a support ticket with a title, a description and a priority.', ['title', 'description', 'priority']),
      tool('close_ticket', 'Close a support ticket once the problem is solved, with a resolution note.', ['ticket_id', 'resolution']),
      tool('read_file', 'Read a text file and return its contents.', ['path']),
      tool('write_file', 'Write text to a file, replacing its contents.', ['path', 'content']),
      tool('star_repository', 'Star a repository.', ['owner', 'repo']),
      tool('unstar_repository', 'Unstar a repository.', ['owner', 'repo']),
      tool('get_commit', 'Get one commit of a repository by its SHA.', ['owner', 'repo', 'sha']),
      tool('list_commits', 'List the commits of a repository, newest first.', ['owner', 'repo']),
    ];
    expect(confusablePairs(tools)).toEqual([]);
  });

  it('the shipped catalogs have at most two findings each (none today)', async () => {
    for (const name of ['assistant', 'coding', 'enterprise', 'large']) {
      const { diagnostics } = await validateCatalog([join(CATALOGS, `${name}.yaml`)], { cwd: ROOT });
      expect(diagnostics.filter((d) => d.code === 'TM1001').length, name).toBeLessThanOrEqual(2);
    }
  });
});

describe('TM1001 in validate', () => {
  it('a family of near-copies is one finding at its first tool; settings turn it off', async () => {
    const tools = Array.from({ length: 6 }, (_, i) => `  - { name: export_report_${i}, description: Export the monthly sales report as a spreadsheet file for finance., parameters: { type: object, properties: { month: { type: string, description: Month. } } }, handler: { mock: [ { result: {} } ] } }`);
    const other = '  - { name: send_invoice, description: Email an invoice to a customer with the amount due and a payment link., parameters: { type: object, properties: { customer: { type: string, description: Customer. } } }, handler: { mock: [ { result: {} } ] } }';
    const found = await tm1001(['toolman: 1', 'tools:', ...tools, other, ''].join('\n'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ tool: 'export_report_0', severity: 'warning', line: 3 });
    expect(found[0]!.message).toContain('export_report_1, export_report_2, export_report_3, export_report_4 and 1 more (6 tools that read alike)');
    expect(await tm1001(['toolman: 1', 'lint: { confusable-tools: off }', 'tools:', ...tools, ''].join('\n'))).toEqual([]);
  });

  it('says what tells two tools apart when that is all that does', () => {
    const [pair] = confusablePairs([tool('get_invoice', 'Get one invoice with its lines and totals.', ['invoice_id']), tool('list_invoices', 'List invoices with their lines and totals.', ['invoice_id'])], { threshold: 0 });
    expect(pair!.distinct_by).toBe('one vs many');
  });

  it('stays linear enough: 300 real tools are compared in well under a second', () => {
    const bfcl = sourceTools('bfcl/functions.json').slice(0, 300);
    const started = performance.now();
    confusablePairs(bfcl);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

/**
 * The labelled set's figures (docs/testing.md): these guard against a change that makes the rule
 * worse; the floors are the measured figures rounded down, so a regression fails here.
 */
describe('[real data] TM1001 on its labelled set', () => {
  const pairs = labelledPairs();
  it('the held-out part: 62% of paraphrase pairs found, at most 1 in 12 related-but-distinct pairs flagged', () => {
    const m = metrics(scoreLabelledSet(pairs.filter((p) => p.split === 'holdout')));
    expect(m.paraphrases).toBe(66);
    expect(m.distinct).toBe(117);
    expect(m.recall).toBeGreaterThanOrEqual(0.62);
    expect(m.falseFlagRate).toBeLessThanOrEqual(1 / 12);
  }, 120_000);

  it('the development parts: 75% found, at most 1 in 12 flagged', () => {
    const m = metrics(scoreLabelledSet(pairs.filter((p) => p.split !== 'holdout')));
    expect(m.recall).toBeGreaterThanOrEqual(0.75);
    expect(m.falseFlagRate).toBeLessThanOrEqual(1 / 12);
  }, 120_000);
});
