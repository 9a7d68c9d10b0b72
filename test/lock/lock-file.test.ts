import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLock, type CurrentServer } from '../../src/lock/lock-drift.js';
import { LockFileError, lockFilePath, lockText, readLock, writeLockFile } from '../../src/lock/lock-file.js';
import { launchIdentity } from '../../src/lock/server-identity.js';
import { definitionHash, toolDefinition } from '../../src/lock/tool-definition.js';
import type { McpServerConfig } from '../../src/catalog/types.js';

const config = (over: Partial<McpServerConfig> = {}): McpServerConfig => ({ name: 'shop', command: 'npx', args: ['-y', 'shop-server@1.0.0'], env: {}, headers: {}, prefix: '', include: [], exclude: [], defaults: {}, file: 'toolman.yaml', pointer: '/mcp_servers/shop', ...over });
const tool = (name: string, description: string, extra: Record<string, unknown> = {}) => ({ name, description, inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, ...extra });
const server = (listed: Record<string, unknown>[], over: Partial<CurrentServer> = {}): CurrentServer => ({ config: config(), listed, serverInfo: { name: 'shop', version: '1.0.0' }, inCatalog: new Map(listed.map((t) => [t.name as string, t.name as string])), ...over });
const folder = () => mkdtempSync(join(tmpdir(), 'toolman-lockfile-'));

describe('the hash of a definition', () => {
  it('covers exactly the pinned fields, whatever the key order; other fields do not count', () => {
    const a = toolDefinition({ name: 't', description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } }, _meta: { x: 1 }, execution: { taskSupport: 'optional' } });
    const b = toolDefinition({ inputSchema: { properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' }, description: 'd', name: 't' });
    expect(a).toEqual(b);
    expect(definitionHash(a)).toBe(definitionHash(b));
    expect(definitionHash(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const change of [{ title: 'T' }, { description: 'e' }, { outputSchema: { type: 'object' } }, { annotations: { readOnlyHint: true } }]) {
      expect(definitionHash(toolDefinition({ ...a, ...change }))).not.toBe(definitionHash(a));
    }
  });
});

describe('the server identity', () => {
  it('is the entry as written: the same on every machine, no secret in it, and it moves when the entry does', () => {
    const base = launchIdentity(config({ env: { TOKEN: '${env:SHOP_TOKEN}' }, cwd: './workspace' }));
    expect(launchIdentity(config({ env: { TOKEN: '${env:SHOP_TOKEN}' }, cwd: './workspace' }))).toBe(base);
    expect(launchIdentity(config({ args: ['-y', 'shop-server@2.0.0'], env: { TOKEN: '${env:SHOP_TOKEN}' }, cwd: './workspace' }))).not.toBe(base);
    expect(launchIdentity(config({ env: { TOKEN: '${env:OTHER}' }, cwd: './workspace' }))).not.toBe(base);
    expect(launchIdentity(config({ url: 'https://a.example/mcp', command: undefined, headers: { Authorization: 'Bearer ${env:T}' } }))).not.toBe(launchIdentity(config({ url: 'https://b.example/mcp', command: undefined })));
  });
});

describe('the lock file', () => {
  it('is sorted, stable JSON: the same pins are the same bytes, whatever order the server listed them in', () => {
    const one = lockText(buildLock([server([tool('b_tool', 'B does things.'), tool('a_tool', 'A does things.')])]));
    const two = lockText(buildLock([server([tool('a_tool', 'A does things.'), tool('b_tool', 'B does things.')])]));
    expect(one).toBe(two);
    expect(one.endsWith('}\n')).toBe(true);
    expect(one.indexOf('"a_tool"')).toBeLessThan(one.indexOf('"b_tool"'));
    const parsed = JSON.parse(one);
    expect(Object.keys(parsed)).toEqual(['//', 'lock_version', 'servers']);
    expect(Object.keys(parsed.servers.shop)).toEqual(['entry', 'launch', 'server_info', 'tools']);
    expect(parsed.servers.shop.entry).toBe('npx -y shop-server@1.0.0');
  });

  it('round-trips, names from servers included (`__proto__`), and escapes control characters a server sent', () => {
    const lock = buildLock([server([tool('__proto__', 'A hostile name.'), tool('bidi', 'Text \u202e reversed \u009b31m and \u0007 bell.')])]);
    const text = lockText(lock);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text).toContain('\\u202e');
    const dir = folder();
    writeLockFile(join(dir, 'toolman.lock'), text, 'toolman.lock');
    const read = readLock(join(dir, 'toolman.lock'), 'toolman.lock')!;
    expect([...read.lock.servers.get('shop')!.tools.keys()]).toEqual(['__proto__', 'bidi']);
    expect(read.lock.servers.get('shop')!.tools.get('bidi')!.definition.description).toBe('Text \u202e reversed \u009b31m and \u0007 bell.');
    expect(lockText(read.lock)).toBe(text);
    expect(Object.getPrototypeOf(read.lock.servers.get('shop')!.tools)).toBe(Map.prototype);
  });

  it('is written 0600, and never through a symbolic link', () => {
    const dir = folder();
    const path = join(dir, 'toolman.lock');
    writeLockFile(path, '{}\n', 'toolman.lock');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeLockFile(path, '{"again": 1}\n', 'toolman.lock');
    expect(readFileSync(path, 'utf8')).toBe('{"again": 1}\n');
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'linked.lock');
    symlinkSync(target, link);
    expect(() => writeLockFile(link, 'overwritten', 'linked.lock')).toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('lives beside the first root catalog, named after it', () => {
    expect(lockFilePath('/p/toolman.yaml')).toBe('/p/toolman.lock');
    expect(lockFilePath('/p/catalogs/shop.yml')).toBe('/p/catalogs/shop.lock');
    expect(lockFilePath('/p/catalog')).toBe('/p/catalog.lock');
  });
});

describe('reading a lock: untrusted input, refused with where and why', () => {
  const good = () => lockText(buildLock([server([tool('a_tool', 'A does things.')])]));
  const attempt = (text: string) => {
    const dir = folder();
    writeFileSync(join(dir, 'toolman.lock'), text);
    try {
      readLock(join(dir, 'toolman.lock'), 'toolman.lock');
      return 'read';
    } catch (error) {
      if (!(error instanceof LockFileError)) throw error;
      return `${error.line}:${error.column} ${error.reason}`;
    }
  };

  it('none is none', () => {
    expect(readLock(join(folder(), 'toolman.lock'), 'toolman.lock')).toBeUndefined();
  });

  it('a definition edited by hand no longer matches its hash', () => {
    expect(attempt(good().replace('A does things.', 'A does other things.'))).toMatch(/^\d+:\d+ the hash does not match the definition beside it/);
  });

  it('bad JSON, YAML, the wrong version or shape: each at its place', () => {
    expect(attempt('{\n  "lock_version": 1,\n  "servers": {,}\n}')).toMatch(/^3:\d+ not valid JSON/);
    expect(attempt('lock_version: 1\nservers: {}\n')).toBe('1:1 not JSON (toolman writes the lock as JSON)');
    expect(attempt('{"lock_version": 2, "servers": {}}')).toMatch(/^1:18 lock_version 2 is not one this toolman reads/);
    expect(attempt('{"servers": {}}')).toMatch(/no lock_version/);
    expect(attempt('{"lock_version": 1, "servers": {"s": {"launch": "md5:1", "entry": "x", "tools": {}}}}')).toMatch(/^1:\d+ "launch" must be "sha256:" and 64 hex digits/);
    const data = JSON.parse(good());
    data.servers.shop.tools.a_tool.definition._meta = { x: 1 };
    expect(attempt(JSON.stringify(data, null, 2))).toMatch(/"_meta" is not a pinned field/);
    const renamed = JSON.parse(good());
    renamed.servers.shop.tools.a_tool.definition.name = 'b_tool';
    expect(attempt(JSON.stringify(renamed, null, 2))).toMatch(/the definition's name must be "a_tool"/);
    expect(attempt('[]')).toMatch(/not a JSON object/);
  });

  it('a folder, or anything but a regular file, is refused without being read', () => {
    const dir = folder();
    mkdirSync(join(dir, 'toolman.lock'));
    expect(() => readLock(join(dir, 'toolman.lock'), 'toolman.lock')).toThrow(/directory/);
  });
});
