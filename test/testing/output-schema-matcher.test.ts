import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, SuiteError } from '../../src/testing/load-suite.js';
import { mismatch, parseMatcher } from '../../src/testing/value-matchers.js';

const schema = { type: 'object', properties: { temp_c: { type: 'number' } }, required: ['temp_c'] };

describe('matches_output_schema', () => {
  it('holds for a value its tool\'s output schema accepts, and says where one fails', () => {
    const matcher = parseMatcher({ matches_output_schema: true });
    expect(matcher).toEqual({ kind: 'output_schema' });
    expect(mismatch({ temp_c: 3 }, matcher, 'result', { outputSchema: schema, tool: 'get_weather' })).toBeNull();
    expect(mismatch({ temp_c: 'cold' }, matcher, 'result', { outputSchema: schema, tool: 'get_weather' })).toBe('result: does not match the output schema of get_weather (/temp_c must be number): got {"temp_c":"cold"}');
    expect(mismatch(undefined, matcher, 'result', { outputSchema: schema })).toMatch(/does not match the output schema/);
  });

  it('fails, saying why, for a tool without an output schema', () => {
    expect(mismatch({ a: 1 }, parseMatcher({ matches_output_schema: true }), 'result', { tool: 'plain' })).toBe('result: expected to match the output schema of plain, but the tool declares no output_schema');
  });

  it('combines with other matchers, and takes only true', () => {
    const both = parseMatcher({ matches_output_schema: true, schema: { type: 'object', properties: { temp_c: { maximum: 0 } } } });
    expect(mismatch({ temp_c: 3 }, both, 'r', { outputSchema: schema })).toMatch(/does not match the schema/);
    expect(mismatch({ temp_c: -2 }, both, 'r', { outputSchema: schema })).toBeNull();
    expect(() => parseMatcher({ matches_output_schema: false }, '/x')).toThrow(/takes true/);
  });

  it('is refused in a suite\'s args, at its place: arguments have no output schema', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolman-matcher-')), 'suite.yaml');
    writeFileSync(file, 'name: s\nproviders: [openai:gpt-4o-mini]\ncases:\n  - name: c\n    prompt: hi\n    expect:\n      calls:\n        - tool: get_weather\n          args: { city: { matches_output_schema: true } }\n');
    let findings: string[] = [];
    try {
      loadSuite(file);
    } catch (error) {
      if (!(error instanceof SuiteError)) throw error;
      findings = error.findings.map((f) => `${f.line}:${f.column} ${f.message}`);
    }
    expect(findings).toEqual([expect.stringMatching(/^9:27 matches_output_schema checks what a tool returned against its output_schema; an argument has no output schema/)]);
  });
});
