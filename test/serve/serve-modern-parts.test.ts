import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApprovalStates, argumentsDigest, principalOf } from '../../src/serve/approval-state.js';
import { paramHeaderMismatch } from '../../src/serve/param-headers.js';
import { headerMarks } from '../../src/shared/x-mcp-header.js';

/** The parts of a handler's context the approval state reads: the method, and who asks. */
function ctx(method: string, auth?: AuthInfo, http = true): ServerContext {
  return { mcpReq: { method }, ...(http ? { http: auth ? { authInfo: auth } : {} } : {}) } as unknown as ServerContext;
}
const alice: AuthInfo = { token: 't', clientId: 'c', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600, extra: { principal: 'https://as.example|alice', authenticated: true } };
const bob: AuthInfo = { ...alice, extra: { principal: 'https://as.example|bob', authenticated: true } };
const anonymous: AuthInfo = { token: '', clientId: 'anonymous', scopes: [], extra: { principal: 'anonymous', authenticated: false } };

afterEach(() => void vi.useRealTimers());

describe('ApprovalStates: the sealed requestState of an approval question', () => {
  it('comes back as its claim from the same principal, on the same method', async () => {
    const states = new ApprovalStates();
    const state = await states.mint('remove', { key: 'a' }, ctx('tools/call', alice));
    const claim = await states.verify(state, ctx('tools/call', alice));
    expect(() => states.redeem(claim, 'remove', { key: 'a' })).not.toThrow();
  });

  it('is refused from another principal, on another method, under another key, or altered', async () => {
    const states = new ApprovalStates();
    const state = await states.mint('remove', { key: 'a' }, ctx('tools/call', alice));
    await expect(states.verify(state, ctx('tools/call', bob))).rejects.toThrow();
    await expect(states.verify(state, ctx('tools/call', anonymous))).rejects.toThrow();
    await expect(states.verify(state, ctx('prompts/get', alice))).rejects.toThrow();
    await expect(new ApprovalStates().verify(state, ctx('tools/call', alice))).rejects.toThrow();
    const [head, body, mac] = state.split('.');
    const forged = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { p: { t: string } };
    forged.p.t = 'other';
    await expect(states.verify(`${head}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`, ctx('tools/call', alice))).rejects.toThrow();
  });

  it('expires after 600 seconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const states = new ApprovalStates();
    const state = await states.mint('remove', {}, ctx('tools/call', alice));
    vi.setSystemTime(Date.now() + 590_000);
    await expect(states.verify(state, ctx('tools/call', alice))).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 20_000);
    await expect(states.verify(state, ctx('tools/call', alice))).rejects.toThrow();
  });

  it('binds the arguments by their canonical form (key order does not matter, values do)', async () => {
    const states = new ApprovalStates();
    expect(argumentsDigest({ a: 1, b: [1, 2] })).toBe(argumentsDigest({ b: [1, 2], a: 1 }));
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: '1' }));
    const claim = await states.verify(await states.mint('t', { a: 1, b: 2 }, ctx('tools/call', alice)), ctx('tools/call', alice));
    expect(() => states.redeem(claim, 't', { a: 1, b: 3 })).toThrow(/another call/);
    expect(() => states.redeem(claim, 'u', { a: 1, b: 2 })).toThrow(/another call/);
    states.redeem(claim, 't', { b: 2, a: 1 });
    expect(() => states.redeem(claim, 't', { b: 2, a: 1 })).toThrow(/already answered/);
  });

  it('remembers "for this session" only for authenticated principals, until the token expires', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const states = new ApprovalStates();
    const who = principalOf(ctx('tools/call', alice));
    states.remember(who, 'remove');
    expect(states.isRemembered(who, 'remove')).toBe(true);
    expect(states.isRemembered(principalOf(ctx('tools/call', bob)), 'remove')).toBe(false);
    const nobody = principalOf(ctx('tools/call', anonymous));
    states.remember(nobody, 'remove');
    expect(states.isRemembered(nobody, 'remove')).toBe(false);
    vi.setSystemTime(alice.expiresAt! * 1000 + 1);
    expect(states.isRemembered(who, 'remove')).toBe(false);
  });

  it('names the principal: a token\'s, anonymous over HTTP, the local client over stdio', () => {
    expect(principalOf(ctx('tools/call', alice))).toMatchObject({ key: 'https://as.example|alice', authenticated: true });
    expect(principalOf(ctx('tools/call', anonymous))).toMatchObject({ key: 'anonymous', authenticated: false });
    expect(principalOf(ctx('tools/call'))).toMatchObject({ key: 'anonymous', authenticated: false });
    expect(principalOf(ctx('tools/call', undefined, false))).toMatchObject({ key: 'stdio', authenticated: true });
  });
});

describe('Mcp-Param headers (spec 2026-07-28 streamable-http.mdx §Custom Headers, §Server Validation)', () => {
  const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer', 'x-mcp-header': 'Count' }, dry: { type: 'boolean', 'x-mcp-header': 'Dry' }, nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } }, query: { type: 'string' } } };
  const marks = (headerMarks(schema) as { ok: true; marks: Parameters<typeof paramHeaderMismatch>[0] }).marks;

  it('finds marks through properties, at any depth', () => {
    expect(marks.map((m) => [m.path.join('.'), m.header])).toEqual([['region', 'Region'], ['count', 'Count'], ['dry', 'Dry'], ['nested.zone', 'Zone']]);
  });

  it.each([
    ['under items', { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'X' } } } }],
    ['on a number', { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } }],
    ['on an object', { type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'O' } } }],
    ['not a token', { type: 'object', properties: { s: { type: 'string', 'x-mcp-header': 'Has Space' } } }],
    ['twice ignoring case', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'SAME' } } }],
    ['under anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }],
    ['at the root', { type: 'object', 'x-mcp-header': 'Root' }],
  ])('refuses a mark %s', (_, bad) => {
    expect(headerMarks(bad).ok).toBe(false);
  });

  it.each([
    ['plain', { region: 'us-west1' }, { 'mcp-param-region': 'us-west1' }, undefined],
    ['Base64 of non-ASCII', { region: 'Hello, 世界' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }, undefined],
    ['Base64 of padding', { region: ' padded ' }, { 'mcp-param-region': '=?base64?IHBhZGRlZCA=?=' }, undefined],
    ['Base64 of a newline', { region: 'line1\nline2' }, { 'mcp-param-region': '=?base64?bGluZTEKbGluZTI=?=' }, undefined],
    ['Base64 of the sentinel itself', { region: '=?base64?literal?=' }, { 'mcp-param-region': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=' }, undefined],
    ['integers numerically', { count: 42 }, { 'mcp-param-count': '42.0' }, undefined],
    ['booleans lowercase', { dry: true }, { 'mcp-param-dry': 'true' }, undefined],
    ['nested', { nested: { zone: 'z1' } }, { 'mcp-param-zone': 'z1' }, undefined],
    ['null needs no header', { region: null }, {}, undefined],
    ['absent needs no header', { query: 'q' }, {}, undefined],
    ['a missing header', { region: 'us-west1' }, {}, /missing/],
    ['a different value', { region: 'us-west1' }, { 'mcp-param-region': 'eu-west1' }, /does not match/],
    ['bad Base64 padding', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, /broken/],
    ['Base64 with foreign characters', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }, /broken/],
    ['a non-ASCII header byte', { region: 'é' }, { 'mcp-param-region': 'é' }, /characters/],
    ['an integer that differs', { count: 42 }, { 'mcp-param-count': '43' }, /does not match/],
    ['TRUE for true', { dry: true }, { 'mcp-param-dry': 'TRUE' }, /does not match/],
  ])('%s', (_, args, headers, expected) => {
    const mismatch = paramHeaderMismatch(marks, args, headers);
    if (expected === undefined) expect(mismatch).toBeUndefined();
    else expect(mismatch).toMatch(expected);
  });
});
