import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, SuiteError } from '../../src/testing/load-suite.js';
import { ErrorCode } from '../../src/shared/errors.js';
import { ROOT } from '../helpers/paths.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';

/**
 * A suite checked against the catalog it names, as `toolman test -c` checks it against the one
 * it runs on (loadSuite alone never opens a catalog the suite names).
 */
function loadChecked(file: string) {
  let named: string[] = [];
  try {
    named = loadSuite(file).catalog;
  } catch {
    // its own problems are reported by the checked load below too
  }
  return loadSuite(file, named.length ? { catalog: loadCatalog(named).catalog } : {});
}

const dir = mkdtempSync(join(tmpdir(), 'toolman-load-suite-'));
let n = 0;
function problems(text: string): string[] {
  const file = join(dir, `s${++n}.yaml`);
  writeFileSync(file, text);
  try {
    loadChecked(file);
  } catch (error) {
    if (error instanceof SuiteError) return error.findings.map((f) => `${f.line}:${f.column} ${f.message}`);
    throw error;
  }
  return [];
}

describe('loading suites', () => {
  it('reads the shipped suite', () => {
    const suite = loadSuite('suites/assistant.yaml', { cwd: ROOT });
    expect(suite.name).toBe('assistant');
    expect(suite.catalog).toEqual([join(ROOT, 'catalogs', 'assistant.yaml')]);
    expect(suite.providers).toEqual([{ provider: 'openai', model: 'gpt-4o', label: 'openai:gpt-4o' }]);
    expect(suite.cases.map((c) => [c.name, c.turns.length, c.repeat])).toContainEqual(['a task and an event, any order', 2, 2]);
  });

  it('reports every problem at file:line:column', () => {
    const found = problems(`catalog: x.yaml
providers: [openai:gpt-4o, mistral]
repeat: 0
cases:
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: t, args: { q: { regex: "(?<=x)" } } }]
      answr: { contains: x }
  - name: b
    prompt: hi
    turns: [{ prompt: again }]
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: t, args: { q: { contains: x, colour: red } } }]
`);
    // Every problem in one pass: schema errors do not hide the matchers, nor one matcher the next.
    expect(found).toEqual([
      expect.stringMatching(/^2:28 item 1 is not a provider spec/),
      expect.stringMatching(/^3:9 "repeat" must be >= 1/),
      expect.stringMatching(/^8:46 the regex does not compile: it uses a lookbehind .*not support/),
      expect.stringMatching(/^9:7 unknown key "answr"; did you mean "answer"\?/),
      expect.stringMatching(/^10:5 a case has `prompt` or `turns`, not both/),
      expect.stringMatching(/^13:11 two cases are named "a"/),
      expect.stringMatching(/^16:52 "colour" is not a matcher/),
    ]);
    expect(problems(`catalog: x.yaml
cases:
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: t, args: { q: { regex: "(foo" }, r: { regex: "(?<=a)b" } } }]
      answer: { regex: "(?<!x)y" }
`)).toEqual([
      expect.stringMatching(/^6:46 the regex does not compile/),
      expect.stringMatching(/^6:68 the regex does not compile: it uses a lookbehind/),
      expect.stringMatching(/^7:24 the regex does not compile: it uses a lookbehind/),
    ]);
  });

  it('checks the tools answer.cites names and the evaluations a case expects against the catalog', () => {
    const catalog = join(ROOT, 'catalogs', 'enterprise.yaml');
    expect(problems(`catalog: ${JSON.stringify(catalog)}
cases:
  - name: a
    prompt: hi
    expect:
      answer: { cites: [search_intranet, "*"] }
      evaluations: { grounded: pass, no_pii: fail }
`)).toEqual([]);
    expect(problems(`catalog: ${JSON.stringify(catalog)}
cases:
  - name: a
    prompt: hi
    expect:
      answer: { cites: [search_intranit] }
      evaluations: { groundd: pass }
`)).toEqual([
      expect.stringMatching(/^6:25 no tool named "search_intranit" in the catalog; did you mean "search_intranet"/),
      expect.stringMatching(/^7:22 no evaluation named "groundd" in the catalog; did you mean "grounded"/),
    ]);
    expect(problems(`catalog: ${JSON.stringify(catalog)}
cases:
  - name: a
    prompt: hi
    expect: { evaluations: { no_pii: maybe } }
`)).toEqual([expect.stringMatching(/^5:38 "no_pii" must be one of "pass", "fail", "error"/)]);
  });

  it('checks tool, argument, profile and matcher names against the catalog', () => {
    const catalog = join(ROOT, 'catalogs', 'assistant.yaml');
    const found = problems(`catalog: ${JSON.stringify(catalog)}
profile: asistant
cases:
  - name: a
    prompt: hi
    profile: nosuchprofile
    expect:
      not_called: [delete_calender_event, delete_*, nothing_*]
      call_count: { delete_calender_event: 0, "*": 1 }
      calls: [{ tool: list_calender_events }, { tool: list_calendar_events, args: { qurey: { exists: false }, from: { contians: ana } } }]
      approvals: [delete_calender_event]
    stubs:
      - { tool: list_calender_events, result: [] }
      - { tool: list_calendar_events, when: { to: { regx: x } }, result: [] }
`);
    expect(found).toEqual([
      expect.stringMatching(/^2:10 no profile named "asistant" in the catalog; did you mean "assistant"/),
      expect.stringMatching(/^6:14 no profile named "nosuchprofile"/),
      expect.stringMatching(/^8:20 no tool named "delete_calender_event" in the catalog; did you mean "delete_calendar_event"/),
      expect.stringMatching(/^8:53 "nothing_\*" matches no tool/),
      expect.stringMatching(/^9:21 no tool named "delete_calender_event".*"delete_calendar_event"/),
      expect.stringMatching(/^10:23 no tool named "list_calender_events".*"list_calendar_events"/),
      expect.stringMatching(/^10:85 "list_calendar_events" has no parameter "qurey"; did you mean "query"/),
      expect.stringMatching(/^10:\d+ "contians" is not a matcher; did you mean "contains"/),
      expect.stringMatching(/^11:19 no tool named "delete_calender_event"/),
      expect.stringMatching(/^13:17 no tool named "list_calender_events"/),
      expect.stringMatching(/^14:53 "regx" is not a matcher; did you mean "regex"/),
    ]);
    // Correct names pass (globs that match, toolman's meta-tools).
    expect(problems(`catalog: ${JSON.stringify(catalog)}
cases:
  - name: a
    prompt: hi
    expect:
      not_called: [delete_calendar_event, tool_search]
      calls: [{ tool: list_calendar_events, args: { query: { exists: false }, from: { contains: "2" } } }]
`)).toEqual([]);
  });

  it('aliases name a tool, and its parameters', () => {
    const catalog = join(dir, 'alias-catalog.yaml');
    writeFileSync(catalog, `toolman: 1
name: a
tools:
  - name: find_events
    aliases: [search_events]
    description: Find calendar events by words in the title.
    parameters: { type: object, properties: { query: { type: string } } }
    handler: { mock: [{ result: [] }] }
`);
    expect(problems(`catalog: alias-catalog.yaml
cases:
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: search_events, args: { query: { contains: x } } }]
      call_count: { find_events: 1, search_events: 1 }
`)).toEqual([]);
    expect(problems(`catalog: alias-catalog.yaml
cases:
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: search_events, args: { qeury: x } }]
      not_called: [serch_events]
`)).toEqual([
      expect.stringMatching(/^6:46 "find_events" has no parameter "qeury"; did you mean "query"/),
      expect.stringMatching(/^7:20 no tool named "serch_events" in the catalog; did you mean "search_events"/),
    ]);
  });

  it('an error thrown for a suite is located and exits 2', () => {
    const file = join(dir, 'located.yaml');
    writeFileSync(file, `catalog: ${JSON.stringify(join(ROOT, 'catalogs', 'assistant.yaml'))}\ncases:\n  - { name: a, prompt: hi, profile: nosuchprofile }\n`);
    try {
      loadChecked(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SuiteError);
      expect((error as SuiteError).code).toBe(ErrorCode.USAGE);
      expect((error as SuiteError).message).toContain(`${file}:3:37 no profile named "nosuchprofile"`);
    }
  });

  it('checks names against the catalog it is given, never by opening the one the suite names', () => {
    const file = join(dir, 'named.yaml');
    writeFileSync(file, `catalog: ${JSON.stringify(join(ROOT, 'catalogs', 'assistant.yaml'))}\ncases:\n  - { name: a, prompt: hi, expect: { calls: [{ tool: run_command }] } }\n`);
    // Alone: no catalog is opened, so nothing is checked against one.
    expect(loadSuite(file).catalog).toEqual([join(ROOT, 'catalogs', 'assistant.yaml')]);
    // With the catalog the user chose (coding.yaml has run_command; assistant.yaml does not).
    expect(() => loadSuite(file, { catalog: loadCatalog([join(ROOT, 'catalogs', 'coding.yaml')]).catalog })).not.toThrow();
    expect(() => loadChecked(file)).toThrow(/no tool named "run_command"/);
  });

  it('refuses YAML that is not a suite, and bombs', () => {
    expect(problems('cases: [\n')[0]).toMatch(/^\d+:\d+ /);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join('\n');
    expect(problems(bomb)[0]).toMatch(/aliases expand/);
    expect(problems('- just a list')[0]).toMatch(/must be object/);
  });
});

describe('recording names from untrusted suites', () => {
  it('never leave the recordings folder', async () => {
    const { slug } = await import('../../src/testing/run-suite.js');
    for (const name of ['..', '../../etc/passwd', '.hidden', 'a/b\\c', '..\u0000..', '']) {
      const s = slug(name);
      expect(s).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
      expect(s).not.toContain('..');
    }
    expect(slug('openai:gpt-4.1-mini')).toBe('openai-gpt-4.1-mini');
  });
});
