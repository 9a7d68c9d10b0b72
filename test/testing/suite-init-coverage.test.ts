import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../src/cli/commands/test-init.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { loadSuiteText } from '../../src/testing/load-suite.js';
import { suiteCoverage, coverageProperties, parameterPaths } from '../../src/testing/suite-coverage.js';
import { confusablePairs, draftSuite, suiteText } from '../../src/testing/suite-init.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

const travel = join(FIXTURES, 'testing', 'travel.yaml');
const confusable = join(FIXTURES, 'diagnostics', 'TM1001-confusable-tools.yaml');

describe('toolman test init: a suite drafted from a catalog (issue 22: 7)', () => {
  it('a case per tool, a not_called case per destructive tool, no_tool cases; it loads as a suite on the catalog', () => {
    const catalog = loadCatalog([travel]).catalog;
    const draft = draftSuite(catalog.tools, []);
    const kinds = draft.cases.map((c) => c.kind);
    expect(kinds.filter((k) => k === 'tool')).toHaveLength(catalog.tools.length);
    expect(draft.cases.filter((c) => c.kind === 'negative').map((c) => c.expect)).toEqual([{ not_called: ['cancel_booking'] }]);
    expect(kinds.filter((k) => k === 'no_tool')).toHaveLength(2);
    const text = suiteText(draft, { name: 'travel-tests', catalog: 'travel.yaml', provider: 'openai', prompts: 'drafted', schema: '../schema/suite.schema.json' });
    const suite = loadSuiteText(text, join(FIXTURES, 'testing', 'travel-tests.yaml'), { catalog });
    expect(suite.cases).toHaveLength(draft.cases.length);
    expect(suite.cases[0]!.expect!.calls![0]!.tool).toBe('get_weather');
  });

  it('a tool\'s first example becomes the expected arguments and the prompt names its values', () => {
    const catalog = loadCatalog([join(ROOT, 'catalogs', 'assistant.yaml')]).catalog;
    const withExample = catalog.tools.find((t) => t.examples.length)!;
    const c = draftSuite([withExample], []).cases[0]!;
    expect(c.expect).toEqual({ calls: [{ tool: withExample.name, args: withExample.examples[0] }] });
    const first = Object.entries(withExample.examples[0]!).find(([, v]) => typeof v === 'string')!;
    expect(c.prompt).toContain(String(first[1]));
  });

  it('a disambiguation case per pair the confusable-tools lint flags, read from validate\'s findings', async () => {
    const manager = await ToolManager.open({ catalogs: [confusable] });
    try {
      const pairs = confusablePairs(await manager.validate(), manager.catalog.tools);
      expect(pairs).toEqual([['get_weather', 'get_current_weather']]);
      const draft = draftSuite(manager.catalog.tools, pairs);
      const d = draft.cases.filter((c) => c.kind === 'disambiguation');
      expect(d.map((c) => c.expect)).toEqual([{ calls: [{ tool: 'get_weather' }], not_called: ['get_current_weather'] }]);
      loadSuiteText(suiteText(draft, { name: 'x', catalog: 'c.yaml', provider: 'openai', prompts: 'drafted', schema: 's.json' }), join(FIXTURES, 'x.yaml'), { catalog: manager.catalog });
    } finally {
      await manager.close();
    }
  });

  it('pairs come from any TM100x finding that names two catalog tools; other codes and unknown names are ignored', () => {
    const tools = loadCatalog([confusable]).catalog.tools;
    const finding = (code: string, tool: string, message: string) => ({ code, tool, message, severity: 'warning', file: 'f', line: 1, column: 1, pointer: '' }) as never;
    expect(confusablePairs([finding('TM1002', 'send_email', 'reads like get_weather and nothing_else'), finding('TM0301', 'get_weather', 'send_email')], tools)).toEqual([['send_email', 'get_weather']]);
  });

  it('hostile names and descriptions stay data: quoted YAML, comments on one line', () => {
    const catalog = loadCatalog([travel]).catalog;
    const tool = { ...catalog.tools[0]!, description: 'Weather.\n- name: injected\n  prompt: x # "quoted" \u001b[2J' };
    const text = suiteText(draftSuite([tool], []), { name: 'a: b', catalog: 'c.yaml', provider: 'openai', prompts: 'p\nq', schema: 's' });
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/^- name: injected/m);
    const suite = loadSuiteText(text, join(FIXTURES, 'y.yaml'), { catalog });
    expect(suite.name).toBe('a: b');
  });

  it("the model's answer is untrusted: known ids only, text only, one line, bounded, no control characters", () => {
    const ids = new Set(['t1', 't2', 'z1']);
    const answer = `Sure! {"t1": "What's the weather\\nin Oslo?\\u001b[31m", "t2": 5, "x9": "extra", "z1": "${'a'.repeat(2000)}"} done`;
    const got = parseAnswer(answer, ids);
    expect(got.get('t1')).toBe("What's the weather in Oslo?");
    expect(got.has('t2')).toBe(false);
    expect(got.has('x9')).toBe(false);
    expect(got.get('z1')).toHaveLength(1000);
    expect(parseAnswer('no json here', ids).size).toBe(0);
    expect(parseAnswer('{"t1": [1, 2]}', ids).size).toBe(0);
    expect(parseAnswer('["t1"]', ids).size).toBe(0);
  });
});

describe('--coverage: what no case exercises (issue 22: 7)', () => {
  const catalog = loadCatalog([travel]).catalog;
  const suite = (yaml: string) => loadSuiteText(`cases:\n${yaml}`, join(FIXTURES, 'testing', 'cov.yaml'), { catalog });

  it('parameters as paths, with enum values', () => {
    const paths = parameterPaths(catalog.tools.find((t) => t.name === 'book_flight')!.parameters);
    expect([...paths.keys()]).toEqual(['from', 'to', 'date', 'passengers', 'options', 'options.seat', 'options.meal']);
    expect(parameterPaths(catalog.tools[0]!.parameters).get('units')).toEqual(['metric', 'imperial']);
  });

  it('tools expected called, the arguments given, the enum values named; not_called exercises nothing', () => {
    const s = suite(`  - name: a
    prompt: weather
    expect: { calls: [{ tool: get_weather, args: { city: Oslo, units: { one_of: [metric] } } }], not_called: [cancel_booking] }
  - name: b
    prompt: flight
    expect: { calls: [{ tool: book_flight, args: { options: { seat: 12A }, passengers: { includes: Dana } } }] }
`);
    const coverage = suiteCoverage(catalog.tools, [s]);
    expect(coverage.tools).toEqual({ total: 5, covered: 2, uncovered: ['get_forecast', 'cancel_booking', 'run_report'] });
    const uncovered = coverage.parameters.uncovered.map((p) => `${p.tool}.${p.parameter}`);
    expect(uncovered).toContain('book_flight.from');
    expect(uncovered).toContain('book_flight.options.meal');
    expect(uncovered).not.toContain('book_flight.options.seat');
    expect(uncovered).not.toContain('book_flight.passengers');
    expect(uncovered).not.toContain('get_weather.units');
    expect(coverage.enum_values).toEqual({ total: 2, covered: 1, uncovered: [{ tool: 'get_weather', parameter: 'units', value: 'imperial' }] });
    const props = coverageProperties(coverage);
    expect(props).toContainEqual({ name: 'coverage.tools', value: '2/5' });
    expect(props).toContainEqual({ name: 'uncovered.enum_value', value: 'get_weather.units=imperial' });
    expect(props).toContainEqual({ name: 'uncovered.tool', value: 'run_report' });
  });

  it('expectations of turns count; a turn\'s literal enum value counts', () => {
    const s = suite(`  - name: t
    turns:
      - { prompt: hi, expect: { calls: [{ tool: get_weather, args: { units: imperial } }] } }
`);
    expect(suiteCoverage(catalog.tools, [s]).enum_values.uncovered.map((e) => e.value)).toEqual(['metric']);
  });
});
