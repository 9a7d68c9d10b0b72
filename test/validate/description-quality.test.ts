import { describe, expect, it } from 'vitest';
import { TOOL_DEFAULTS, type Tool } from '../../src/catalog/types.js';
import { assessTool, CRITERIA } from '../../src/validate/description-quality.js';

function tool(fields: Partial<Tool>): Tool {
  return {
    name: 'tool',
    aliases: [],
    tags: [],
    keywords: [],
    profiles: [],
    effect: TOOL_DEFAULTS.effect,
    confirm: 'auto',
    enabled: true,
    exclusive: false,
    takesControl: false,
    deferLoading: false,
    alwaysLoad: false,
    concurrency: 'safe',
    mode: 'direct',
    dedupe: true,
    timeoutMs: 1000,
    maxResultTokens: 100,
    truncation: 'smart',
    prompts: {},
    parameters: { type: 'object', properties: {} },
    examples: [],
    source: { kind: 'catalog', file: 'c.yaml', pointer: '/tools/0' },
    ...fields,
  };
}

describe('description quality: each criterion and the score', () => {
  it('the weights add up to 100', () => {
    expect(Object.values(CRITERIA).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('a description that says what, when, what comes back and what is lost scores 100', () => {
    const q = assessTool(tool({
      name: 'delete_event',
      effect: 'destructive',
      description: 'Delete an event from the calendar and return its title. Use it only when the user asks to cancel the event; it cannot be undone.',
      parameters: { type: 'object', properties: { event_id: { type: 'string', description: 'The event id from list_events.' } } },
    }));
    expect(q).toMatchObject({ score: 100, graded_by: 'rules', checks: { purpose: true, usage: true, returns: true, effects: true, parameters: true, formats: null, own_words: true } });
  });

  it('no description: only the parameters and formats can score', () => {
    const q = assessTool(tool({ name: 'ping' }));
    expect(q.checks).toMatchObject({ purpose: false, usage: null, returns: null });
    expect(q.score).toBe(CRITERIA.parameters + CRITERIA.formats);
  });

  it('each missing criterion costs its share, and says which', () => {
    const findings: string[] = [];
    const q = assessTool(
      tool({
        name: 'create_event',
        description: 'Create an event in the calendar of the user.',
        parameters: { type: 'object', properties: { start_date: { type: 'string', description: 'When it starts.' }, title: { type: 'string' } } },
      }),
      (code) => findings.push(code),
    );
    expect(findings.sort()).toEqual(['TM1101', 'TM1102', 'TM1104']);
    expect(q.checks).toMatchObject({ usage: false, returns: false, parameters: false, formats: false });
    expect(q.score).toBe(100 - CRITERIA.usage - CRITERIA.returns - CRITERIA.formats - CRITERIA.parameters / 2);
  });

  it('a read-only tool that starts with a reading verb says what it returns by it; a stated format counts', () => {
    const findings: string[] = [];
    assessTool(tool({ name: 'list_invoices', effect: 'read', description: 'List the invoices of an account, newest first. Use it for billing questions.', parameters: { type: 'object', properties: { since: { type: 'string', description: 'Only invoices after this date, e.g. 2026-01-31.' } } } }), (code) => findings.push(code));
    expect(findings).toEqual([]);
  });

  it('a description that only repeats the name', () => {
    const findings: string[] = [];
    assessTool(tool({ name: 'get_weather_forecast', effect: 'read', description: 'Gets the weather forecast, for use.' }), (code) => findings.push(code));
    expect(findings).toContain('TM1105');
  });
});
