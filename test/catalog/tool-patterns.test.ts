import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/catalog/types.js';
import { matchesPattern, parsePattern } from '../../src/catalog/tool-patterns.js';

const tool = (overrides: Partial<Tool>): Tool => ({
  name: 'search_docs',
  aliases: ['docs.search'],
  tags: ['search', 'read'],
  keywords: [],
  profiles: ['coding'],
  category: 'knowledge',
  effect: 'read',
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
  parameters: { type: 'object' },
  examples: [],
  source: { kind: 'catalog', file: 'x.yaml', pointer: '/tools/0' },
  ...overrides,
});

const matches = (pattern: string, t: Tool) => {
  const parsed = parsePattern(pattern);
  if (!parsed.ok) throw new Error(parsed.reason);
  return matchesPattern(t, parsed.pattern);
};

describe('patterns', () => {
  it.each([
    ['search_docs', true],
    ['docs.search', true],
    ['search_*', true],
    ['*_docs', true],
    ['search_doc?', true],
    ['search', false],
    ['category:knowledge', true],
    ['category:files', false],
    ['tag:search', true],
    ['tag:write', false],
    ['effect:read', true],
    ['effect:destructive', false],
    ['profile:coding', true],
    ['profile:assistant', false],
  ])('%s matches: %s', (pattern, expected) => {
    expect(matches(pattern, tool({}))).toBe(expected);
  });

  it('matches source: against MCP servers and agents', () => {
    expect(matches('source:files', tool({ source: { kind: 'mcp', server: 'files', tool: 'read', file: 'toolman.yaml', pointer: '/mcp_servers/files' } }))).toBe(true);
    expect(matches('source:researcher', tool({ source: { kind: 'agent', name: 'researcher', file: 'x', pointer: '/agents/researcher' } }))).toBe(true);
    expect(matches('source:files', tool({}))).toBe(false);
  });

  it('treats glob metacharacters other than * and ? literally', () => {
    expect(matches('search.docs', tool({ aliases: [] }))).toBe(false);
    expect(matches('a+b*', tool({ name: 'a+bc', aliases: [] }))).toBe(true);
  });

  it('rejects empty patterns and unknown prefixes', () => {
    expect(parsePattern('  ')).toMatchObject({ ok: false });
    expect(parsePattern('categry:files')).toMatchObject({ ok: false, prefix: 'categry' });
    expect(parsePattern('tag:')).toMatchObject({ ok: false });
  });
});
