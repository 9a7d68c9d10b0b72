import { describe, expect, it } from 'vitest';
import { headerMarks, paramHeaderProblem } from '../../src/shared/x-mcp-header.js';

// The one check of `x-mcp-header` marks (MCP 2026-07-28 `server/tools.mdx`, read 2026-11-24),
// used by the client (tolerant-transport.ts) and by serve (param-headers.ts).

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('headerMarks', () => {
  it('lists the marks reached through properties, in schema order', () => {
    const checked = headerMarks(schema({ region: { type: 'string', 'x-mcp-header': 'Region' }, opts: { type: 'object', properties: { days: { type: 'integer', 'x-mcp-header': 'Days' } } }, q: { type: 'string' } }));
    expect(checked).toEqual({ ok: true, marks: [{ path: ['region'], header: 'Region', type: 'string' }, { path: ['opts', 'days'], header: 'Days', type: 'integer' }] });
  });

  it('gives the first reason marks break the rules', () => {
    expect(paramHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }))).toBe('property "a": x-mcp-header "Bad Name" is not an HTTP header token');
    expect(paramHeaderProblem(schema({ n: { type: 'number', 'x-mcp-header': 'N' } }))).toBe('property "n": x-mcp-header on a parameter of type number (only integer, string or boolean)');
    expect(paramHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': 'Name' }, b: { type: 'string', 'x-mcp-header': 'NAME' } }))).toBe('x-mcp-header "NAME" differs only in case from "Name"');
    expect(paramHeaderProblem(schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }))).toBe('property "list.(items)": x-mcp-header is allowed only on a property reached through "properties" alone');
    expect(paramHeaderProblem({ type: 'string', 'x-mcp-header': 'Root' })).toBe('the schema root: x-mcp-header is allowed only on a property reached through "properties" alone');
    expect(headerMarks(schema({ a: { type: 'string', 'x-mcp-header': '' } }))).toEqual({ ok: false, reason: 'property "a": x-mcp-header is not a non-empty string' });
  });

  it('gives up past 64 levels, and takes no mark from a prototype', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 70; i++) deep = { type: 'object', properties: { x: deep } };
    expect(paramHeaderProblem(deep)).toBe('its schema nests more than 64 levels deep');
    const inherited = Object.create({ 'x-mcp-header': 'Sneaky' }) as Record<string, unknown>;
    inherited.type = 'string';
    expect(headerMarks(schema({ a: inherited }))).toEqual({ ok: true, marks: [] });
  });
});
