import { describe, expect, it } from 'vitest';
import { MAX_REFERENCES_PER_RESULT, MAX_SNIPPET_LENGTH, MAX_TITLE_LENGTH, resultReferences } from '../../src/execute/result-references.js';
import { renderCallResult } from '../../src/mcp/call-result.js';

const spec = { kind: 'select' as const, items: '$.results[*]', url: '$.url', title: '$.title', snippet: '$.snippet' };

describe('sources in a result (references:)', () => {
  it('takes each item\'s url, title and snippet, from a value or from JSON text', () => {
    const value = { results: [{ title: 'Example', url: 'https://example.org/a', snippet: 'A snippet.' }, { url: 'https://example.org/b' }] };
    const expected = [{ url: 'https://example.org/a', title: 'Example', snippet: 'A snippet.' }, { url: 'https://example.org/b' }];
    expect(resultReferences(spec, value)).toEqual(expected);
    expect(resultReferences(spec, JSON.stringify(value))).toEqual(expected);
    expect(resultReferences(spec, 'not json')).toEqual([]);
  });

  it('cleans what a result says: control and invisible characters out, whitespace folded, titles and snippets cut', () => {
    const value = { results: [{ url: 'https://e.org/x', title: `\u001b]0;owned\u0007Ti\u200btle\nwith\tbreaks ${'t'.repeat(500)}`, snippet: 's'.repeat(2000) }] };
    const [ref] = resultReferences(spec, value);
    expect(ref!.title!.startsWith('Title with breaks t')).toBe(true);
    expect(ref!.title!).not.toMatch(/[\u0000-\u001f\u200b]/);
    expect(ref!.title!.length).toBe(MAX_TITLE_LENGTH);
    expect(ref!.snippet!.length).toBe(MAX_SNIPPET_LENGTH);
  });

  it('refuses URLs that do not parse, hold spaces or run code, and keeps each URL once', () => {
    const value = { results: ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<b>x</b>', 'not a url', 'https://e.org/ok', 'https://e.org/ok', 42, 'https://e.org/' + 'a'.repeat(5000)].map((url) => ({ url })) };
    expect(resultReferences(spec, value).map((r) => r.url)).toEqual(['https://e.org/ok']);
  });

  it('takes at most ten sources from one result, and redacts secrets with the executor\'s redaction', () => {
    const value = { results: Array.from({ length: 40 }, (_, i) => ({ url: `https://e.org/${i}?key=sk-secret-value`, title: `page ${i} sk-secret-value` })) };
    const refs = resultReferences(spec, value, (t) => t.replaceAll('sk-secret-value', '[redacted]'));
    expect(refs).toHaveLength(MAX_REFERENCES_PER_RESULT);
    expect(JSON.stringify(refs)).not.toContain('sk-secret-value');
  });

  it('a selector that does not parse finds nothing (validate says why: TM1406)', () => {
    expect(resultReferences({ ...spec, items: '$..x' }, { results: [{ url: 'https://e.org' }] })).toEqual([]);
  });

  it('resource_links: the resource_link blocks of an MCP result, as the MCP runner renders them', () => {
    const rendered = renderCallResult({
      content: [
        { type: 'text', text: 'Found two files.' },
        { type: 'resource_link', uri: 'file:///repo/README.md', name: 'The read me', description: 'project overview: start here' },
        { type: 'resource_link', uri: 'https://e.org/doc', name: 'doc' },
        { type: 'resource_link', uri: 'javascript:alert(1)', name: 'bad' },
      ],
    });
    expect(resultReferences({ kind: 'resource_links' }, rendered)).toEqual([
      { url: 'file:///repo/README.md', title: 'The read me', snippet: 'project overview: start here' },
      { url: 'https://e.org/doc', title: 'doc' },
    ]);
  });
});
