import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/validate/validate-catalog.js';

const TMP = mkdtempSync(join(tmpdir(), 'toolman-stateful-rules-'));
let n = 0;

async function findings(yaml: string) {
  const file = join(TMP, `c${n++}.yaml`);
  writeFileSync(file, yaml);
  return (await validateCatalog([file])).diagnostics.map((d) => ({ code: d.code, line: d.line, message: d.message }));
}

describe('what applies to a result, on a stateful tool (TM0736)', () => {
  it('each field is reported where it is written, and the mock-result checks of TM14xx stay quiet', async () => {
    const found = await findings(`toolman: 1
budget:
  summarize: { provider: openai, model: gpt-4o-mini }
evaluations:
  https_only: { description: Every page over https., not_regex: "http://", on: result }
  polite: { description: Says please., regex: please }
tools:
  - name: search_pages
    description: Search the pages and report each match as it is found.
    effect: read
    mode: stateful
    truncation: summarize
    output_schema: { type: object, required: [pages] }
    references: { items: "$.pages[*]", url: "$.link" }
    evaluation: [polite, https_only]
    handler:
      mock: [{ yields: [{ url: "http://example.com/a" }], result: { found: 1 } }]
`);
    const tm0736 = found.filter((d) => d.code === 'TM0736');
    expect(tm0736.map((d) => d.line)).toEqual([12, 13, 14, 15]);
    expect(tm0736.map((d) => d.message.split(' is not applied')[0])).toEqual([
      'tools[0] "search_pages": truncation: summarize',
      'tools[0] "search_pages": output_schema',
      'tools[0] "search_pages": references',
      'tools[0] "search_pages": the result check "https_only" (on: result)',
    ]);
    expect(tm0736[0]!.message).toContain('its yields are cut with smart');
    // The mock's result is a job's end, not what the selectors and checks would read: no TM1410 or TM1411 besides.
    expect(found.filter((d) => d.code === 'TM1410' || d.code === 'TM1411')).toEqual([]);
  });

  it('a field an override sets is reported at the override; a direct tool with the same fields is not reported', async () => {
    const found = await findings(`toolman: 1
tools:
  - name: watch_log
    description: Follow the log and report each new line.
    effect: read
    mode: stateful
    handler:
      mock: [{ yields: [{ line: one }], result: { lines: 1 } }]
  - name: read_log
    description: Read the whole log at once.
    effect: read
    handler:
      mock: [{ result: { lines: [] } }]
overrides:
  - tools: ["*_log"]
    set:
      output_schema: { type: object }
`);
    expect(found.filter((d) => d.code === 'TM0736')).toEqual([expect.objectContaining({ line: 17, message: expect.stringMatching(/^overrides\[0\], on tool "watch_log": output_schema is not applied/) })]);
  });
});
