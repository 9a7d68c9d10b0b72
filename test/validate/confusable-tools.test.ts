import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confusableEvidence, confusablePairs, type ToolText } from '../../src/validate/confusable-pairs.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { holdout3Pairs, labelledPairs, metrics, scoreLabelledSet, sourceTools } from '../helpers/confusable-labelled-set.js';
import { CATALOGS, FIXTURES, ROOT } from '../helpers/paths.js';

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

  it('the shipped catalogs have at most two findings each (large.yaml two, the others none)', async () => {
    for (const name of ['assistant', 'coding', 'enterprise', 'large']) {
      const { diagnostics } = await validateCatalog([join(CATALOGS, `${name}.yaml`)], { cwd: ROOT });
      expect(diagnostics.filter((d) => d.code === 'TM1001').length, name).toBeLessThanOrEqual(2);
    }
  });
});

describe('TM1001: what the names say', () => {
  it('a namespace is not what a tool acts on: the same function under another namespace, or none, is found (the old rule took `geometry` for a thing)', () => {
    const pairs = names(
      confusablePairs([
        tool('geometry.circle_area', 'Calculate the area of a circle from its radius.', ['radius', 'units']),
        tool('circle_area', 'Return the area of a circle given its radius.', ['radius', 'unit']),
        tool('geometry.square_perimeter', 'Calculate the perimeter of a square from the length of its side.', ['side']),
        tool('geometry.triangle_area', 'Calculate the area of a triangle from its base and height.', ['base', 'height']),
      ]),
    );
    expect(pairs).toEqual(['circle_area ~ geometry.circle_area']);
  });

  it('a namespace that is all a name has besides its verb is what it acts on (`area_rectangle.calculate` is no perimeter)', () => {
    const pairs = confusablePairs([
      tool('rectangle.calculate_perimeter', 'Calculate the perimeter of a rectangle from its length and width.', ['length', 'width']),
      tool('area_rectangle.calculate', 'Calculate the area of a rectangle from its length and width.', ['length', 'width']),
      tool('circle.calculate_area', 'Calculate the area of a circle from its radius.', ['radius']),
    ]);
    expect(names(pairs)).not.toContain('area_rectangle.calculate ~ rectangle.calculate_perimeter');
  });

  it('two namespaces that differ are what each acts on: the same function of two shops is two tools (main flagged them)', () => {
    const tools = [
      tool('corner_market.organic_snacks', 'List the organic snacks a store sells, with their prices.', ['store_location', 'max_price']),
      tool('farm_outlet.organic_snacks', 'List the organic snacks a store sells, with their prices.', ['store_location', 'max_price']),
      tool('corner_market.opening_hours', 'Get the opening hours of a store.', ['store_location']),
    ];
    expect(confusablePairs(tools)).toEqual([]);
    // A namespace both share stays context, and one alone (another server's name for it) too.
    const pairs = names(
      confusablePairs([
        tool('shop_api.organic_snacks', 'List the organic snacks a store sells, with their prices.', ['store_location', 'max_price']),
        tool('shop_api.list_organic_snacks', 'List the organic snacks sold by a store, and their prices.', ['store_location', 'max_price']),
        tool('organic_snacks', 'List the organic snacks a store sells, with their prices.', ['store_location', 'max_price']),
      ]),
    );
    expect(pairs.sort()).toEqual(['organic_snacks ~ shop_api.list_organic_snacks', 'organic_snacks ~ shop_api.organic_snacks', 'shop_api.list_organic_snacks ~ shop_api.organic_snacks']);
  });

  it('the same two things in the other direction are two tools (csv to json, json to csv; main flagged them)', () => {
    const tools = [
      tool('convert_csv_to_json', 'Convert a CSV file into a JSON document, one object per row.', ['input_path', 'output_path']),
      tool('convert_json_to_csv', 'Convert a JSON document into a CSV file, one row per object.', ['input_path', 'output_path']),
      tool('list_conversions', 'List the conversions run today.', []),
    ];
    const [pair] = confusablePairs(tools, { threshold: 0 }).filter((p) => names([p])[0] === 'convert_csv_to_json ~ convert_json_to_csv');
    expect(pair!.distinct_by).toContain('csv to json vs json to csv');
    expect(confusablePairs(tools)).toEqual([]);
  });

  it('a period only one name is for tells two tools apart (main flagged them)', () => {
    const tools = [
      tool('get_sales_total', 'Get the total sales of a store for a month, in its currency.', ['store_id', 'month']),
      tool('get_quarterly_sales_total', 'Get the total sales of a store for a month of a quarter, in its currency.', ['store_id', 'month']),
      tool('get_store_address', 'Get the address of a store.', ['store_id']),
    ];
    const [pair] = confusablePairs(tools, { threshold: 0 }).filter((p) => p.a.includes('sales') && p.b.includes('sales'));
    expect(pair!.distinct_by).toBe('quarterly');
    expect(confusablePairs(tools)).toEqual([]);
  });

  it('a name word that abbreviates words the other text spells out is no difference (roi: return on investment)', () => {
    const tools = [
      tool('calculate_roi', 'Calculate the return on investment of a project from its gain and its cost, as a percentage.', ['gain', 'cost']),
      tool('compute_return_on_investment', 'Compute what a project returns on what was invested in it, as a percentage of its cost.', ['cost', 'gain']),
      tool('get_project_budget', 'Get the budget of a project.', ['project_id']),
    ];
    const evidence = confusableEvidence(tools).find((e) => [e.a, e.b].sort().join() === 'calculate_roi,compute_return_on_investment')!;
    expect(evidence.a === 'calculate_roi' ? evidence.onlyA : evidence.onlyB).toEqual([]);
    expect(names(confusablePairs(tools))).toEqual(['calculate_roi ~ compute_return_on_investment']);
  });

  it('words of one meaning in the thesaurus (WordNet) are one word: average and mean', () => {
    const tools = [
      tool('average_rainfall', 'Get the average rainfall of a region over a number of months.', ['region', 'months']),
      tool('mean_rainfall', 'Return the mean rainfall for a region across some months.', ['region', 'months']),
      tool('rainfall_alerts', 'List the flood alerts issued for a region.', ['region']),
    ];
    expect(names(confusablePairs(tools))).toEqual(['average_rainfall ~ mean_rainfall']);
    // Without the thesaurus the names differ in a word neither text explains.
    expect(confusablePairs(tools, { thesaurus: false })).toEqual([]);
  });

  it("the thesaurus never joins two verbs the lexicon tells apart (WordNet's rarer senses make `edit` a way to `delete`)", () => {
    const tools = [
      tool('edit_file', 'Edit a text file by replacing lines, and show the diff.', ['path', 'edits']),
      tool('delete_file', 'Delete a file from the workspace.', ['path']),
      tool('list_files', 'List the files of a folder.', ['path']),
    ];
    expect(confusablePairs(tools)).toEqual([]);
  });

  it('"several" words are one word, and a collective noun is many of a thing, not a part of it', () => {
    const pairs = names(
      confusablePairs([
        tool('fetch_multiple_invoices', 'Fetch several invoices at once by their ids; an invoice that cannot be read does not fail the others.', ['invoice_ids']),
        tool('fetch_invoices_batch', 'Fetch a batch of invoices by their ids at once; one that fails does not fail the others.', ['ids']),
        tool('list_payments', 'List the payments of an account, newest first.', ['account_id', 'limit']),
        tool('get_payment_history', 'Get the history of payments of an account, newest first.', ['account_id', 'limit']),
        tool('send_invoice', 'Email an invoice to a customer.', ['invoice_id']),
      ]),
    );
    expect(pairs).toContain('fetch_invoices_batch ~ fetch_multiple_invoices');
    expect(pairs).toContain('get_payment_history ~ list_payments');
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
    // CPU time, not wall time: a machine busy with other work must not fail the bound.
    const started = process.cpuUsage();
    confusablePairs(bfcl);
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
  });
});

/**
 * The labelled set's figures (docs/testing.md): these guard against a change that makes the rule
 * worse; the floors are the measured figures rounded down, so a regression fails here.
 */
describe('[real data] TM1001 on its labelled set', () => {
  const pairs = labelledPairs();
  const bySize = (outcomes: ReturnType<typeof scoreLabelledSet>) => (['small', 'medium', 'large'] as const).map((size) => metrics(outcomes.filter((o) => o.size === size)));

  it('the older development parts (tune, dev, dev2, holdout): 84% of paraphrase pairs found, at most 1 in 12 related-but-distinct pairs flagged at each size', () => {
    const outcomes = scoreLabelledSet(pairs.filter((p) => ['tune', 'dev', 'dev2', 'holdout'].includes(p.split)));
    const m = metrics(outcomes);
    expect(m.paraphrases).toBe(372);
    expect(m.distinct).toBe(546);
    expect(m.recall).toBeGreaterThanOrEqual(0.84);
    for (const size of bySize(outcomes)) expect(size.falseFlagRate).toBeLessThanOrEqual(1 / 12);
  }, 120_000);

  // Held out until 2026-11-24 (scored once with the rule of commit 7247d4f: 57.2% found, 29 of 201
  // flagged), then development data: the namespace, direction and period rules answer what went
  // wrong there, so its false flags fell to 13 (docs/testing.md). Not held out any more; the
  // issue's 90% is missed here, and these figures only guard against getting worse.
  it('holdout2, now development data: 57% of paraphrase pairs found, 13 of 201 related-but-distinct pairs flagged', () => {
    const m = metrics(scoreLabelledSet(pairs.filter((p) => p.split === 'holdout2')));
    expect(m.paraphrases).toBe(180);
    expect(m.distinct).toBe(201);
    expect(m.recall).toBeGreaterThanOrEqual(0.57);
    expect(m.falseFlags).toBeLessThanOrEqual(13);
  }, 120_000);

  // Written by a labeller who never saw the rule, committed before it was scored, scored once on
  // 2026-11-24 with this rule (b5c10db): 50.6% found, 37 of 393 flagged. The issue's targets are
  // missed here (docs/testing.md); these figures guard against getting worse, and it is spent.
  it('holdout3, scored once: 50% of paraphrase pairs found, 37 of 393 related-but-distinct pairs flagged', () => {
    const m = metrics(scoreLabelledSet(labelledPairs({ holdout3: true }).filter((p) => p.split === 'holdout3')));
    expect(m.paraphrases).toBe(393);
    expect(m.distinct).toBe(393);
    expect(m.recall).toBeGreaterThanOrEqual(0.506);
    expect(m.falseFlags).toBeLessThanOrEqual(37);
  }, 120_000);
});

describe('the labelled set loader', () => {
  const find = (source: string, name: string) => {
    const found = sourceTools(source).find((t) => t.name === name);
    if (!found) throw new Error(`no ${name}`);
    return found;
  };

  it("reads a held-out part written like holdout2's sections into split holdout3, whatever the entries' split says", () => {
    const doc = {
      holdout3_paraphrases: [{ source: 'mcp/server-filesystem.json', of: 'read_text_file', tool: { name: 'file_text', description: 'Return the text of a file.', params: ['path'] } }],
      holdout3_real_pairs: [{ source: 'mcp/server-memory.json', a: 'create_entities', b: 'delete_entities', label: 'distinct' }],
      holdout3_written_distinct: [{ context: 'mcp/server-filesystem.json', a: { name: 'zip_folder', description: 'Zip a folder.', params: ['path'] }, b: { name: 'unzip_archive', description: 'Unzip an archive.', params: ['path'] } }],
      holdout3_written_pairs: [{ split: 'tune', context: 'mcp/server-filesystem.json', a: { name: 'count_lines', description: 'Count the lines of a file.', params: ['path'] }, b: { name: 'line_count', description: 'Number of lines in a file.', params: ['file'] } }],
    };
    const pairs = holdout3Pairs(doc, find);
    expect(pairs.map((p) => [p.id, p.split, p.label])).toEqual([
      ['read_text_file ~ file_text', 'holdout3', 'paraphrase'],
      ['create_entities ~ delete_entities', 'holdout3', 'distinct'],
      ['zip_folder ~ unzip_archive', 'holdout3', 'distinct'],
      ['count_lines ~ line_count', 'holdout3', 'paraphrase'],
    ]);
    // Sections named as in labelled-set.yaml's holdout2 are read too.
    expect(holdout3Pairs({ holdout2_real_pairs: doc.holdout3_real_pairs }, find)).toHaveLength(1);
  });

  it('a held-out file with no pairs, or not a mapping, is an error, not an empty part', () => {
    expect(() => holdout3Pairs({ something: [] }, find)).toThrow(/no pairs/);
    expect(() => holdout3Pairs('text', find)).toThrow(/mapping/);
  });

  it('leaves holdout3 out unless asked for, and reads holdout3.yaml beside the set when asked', () => {
    expect(labelledPairs().some((p) => p.split === 'holdout3')).toBe(false);
    const fixtures = mkdtempSync(join(tmpdir(), 'toolman-holdout3-'));
    mkdirSync(join(fixtures, 'confusable'));
    copyFileSync(join(FIXTURES, 'confusable', 'labelled-set.yaml'), join(fixtures, 'confusable', 'labelled-set.yaml'));
    writeFileSync(join(fixtures, 'confusable', 'holdout3.yaml'), 'holdout3_real_pairs:\n  - { source: mcp/server-memory.json, a: create_entities, b: delete_entities, label: distinct }\n');
    const before = process.env.TOOLMAN_FIXTURES;
    process.env.TOOLMAN_FIXTURES = fixtures;
    try {
      expect(labelledPairs({ holdout3: true }).filter((p) => p.split === 'holdout3').map((p) => p.id)).toEqual(['create_entities ~ delete_entities']);
    } finally {
      if (before === undefined) delete process.env.TOOLMAN_FIXTURES;
      else process.env.TOOLMAN_FIXTURES = before;
    }
  });
});
