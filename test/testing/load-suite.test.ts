import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, SuiteError } from '../../src/testing/load-suite.js';
import { ROOT } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'toolman-load-suite-'));
let n = 0;
function problems(text: string): string[] {
  const file = join(dir, `s${++n}.yaml`);
  writeFileSync(file, text);
  try {
    loadSuite(file);
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
    expect(found).toEqual([
      expect.stringMatching(/^2:28 item 1 is not a provider spec/),
      expect.stringMatching(/^3:9 "repeat" must be >= 1/),
      expect.stringMatching(/^9:7 unknown key "answr"; did you mean "answer"\?/),
      expect.stringMatching(/^10:5 a case has `prompt` or `turns`, not both/),
    ]);
    // Schema problems first; the matchers are compiled once the shape is right.
    expect(problems(`catalog: x.yaml
cases:
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: t, args: { q: { regex: "(?<=x)" } } }]
  - name: a
    prompt: hi
    expect:
      calls: [{ tool: t, args: { q: { contains: x, colour: red } } }]
`)).toEqual([
      expect.stringMatching(/^6:46 the regex does not compile/),
      expect.stringMatching(/^7:11 two cases are named "a"/),
      expect.stringMatching(/^10:52 "colour" is not a matcher/),
    ]);
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
