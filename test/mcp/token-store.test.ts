import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oauthFolder, TokenStore } from '../../src/mcp/oauth/token-store.js';

const ISSUER = 'https://auth.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';

function store() {
  const config = mkdtempSync(join(tmpdir(), 'toolman-tokens-'));
  const tokens = new TokenStore({ TOOLMAN_CONFIG_DIR: config });
  return { tokens, folder: join(config, 'oauth') };
}

describe('the OAuth token store', () => {
  it('lives in TOOLMAN_CONFIG_DIR/oauth, else XDG_CONFIG_HOME/toolman/oauth, else ~/.config/toolman/oauth', () => {
    expect(oauthFolder({ TOOLMAN_CONFIG_DIR: '/c' })).toBe('/c/oauth');
    expect(oauthFolder({ XDG_CONFIG_HOME: '/x' })).toBe('/x/toolman/oauth');
    expect(oauthFolder({ HOME: '/home/u' })).toBe('/home/u/.config/toolman/oauth');
  });

  it('writes one 0600 file per issuer in a 0700 folder, and reads it back', () => {
    const { tokens, folder } = store();
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'at-1', refresh_token: 'rt-1' }, loginId: 'login-1' }));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(folder);
    expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(statSync(join(folder, file!)).mode & 0o777).toBe(0o600);
    expect(tokens.find(RESOURCE)?.entry).toMatchObject({ tokens: { access_token: 'at-1' }, loginId: 'login-1' });
    expect(tokens.forgetResource(RESOURCE)).toEqual([ISSUER]);
    expect(tokens.find(RESOURCE)).toBeUndefined();
  });

  it('tightens a folder that was made looser', () => {
    const { tokens, folder } = store();
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(folder, 0o755);
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'a' } }));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('refuses a token file reached through a symbolic link, and never writes through one', () => {
    const { tokens, folder } = store();
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'mine' } }));
    const [file] = readdirSync(folder);
    const path = join(folder, file!);
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'toolman-elsewhere-')), 'planted.json');
    writeFileSync(elsewhere, readFileSync(path, 'utf8'), { mode: 0o600 });
    rmSync(path);
    symlinkSync(elsewhere, path);
    expect(() => tokens.find(RESOURCE)).toThrow(/is reached through a symbolic link; toolman does not follow one to a credential/);
    // A write refuses it too; the file it points to is untouched.
    const before = readFileSync(elsewhere, 'utf8');
    expect(() => tokens.write({ issuer: ISSUER, resources: {} })).toThrow(/is a symbolic link; toolman does not write through symbolic links/);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
  });

  it('refuses a file other users can read', () => {
    const { tokens, folder } = store();
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'a' } }));
    const [file] = readdirSync(folder);
    chmodSync(join(folder, file!), 0o644);
    expect(() => tokens.find(RESOURCE)).toThrow(/can be read by other users \(mode 644\)/);
  });

  it('says where a corrupt file is broken, and what to do', () => {
    const { tokens, folder } = store();
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'a' } }));
    const [file] = readdirSync(folder);
    writeFileSync(join(folder, file!), '{\n  "issuer": "x",\n  oops\n}\n', { mode: 0o600 });
    let error: (Error & { hint?: string }) | undefined;
    try {
      tokens.find(RESOURCE);
    } catch (e) {
      error = e as Error & { hint?: string };
    }
    expect(error?.message).toMatch(/the OAuth token file .*\.json is not valid JSON \(line 3, column 3\)/);
    expect(error?.hint).toContain('toolman mcp login');
  });

  it('refuses a file whose issuer is not the one its name is for (copied or edited)', () => {
    const { tokens, folder } = store();
    tokens.update(ISSUER, RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'a' } }));
    const [file] = readdirSync(folder);
    writeFileSync(join(folder, file!), JSON.stringify({ issuer: 'https://other.example', resources: {} }), { mode: 0o600 });
    expect(() => tokens.find(RESOURCE)).toThrow(/holds the issuer "https:\/\/other.example", whose file is another/);
  });

  it('keeps the latest login when a server moved to another authorization server', async () => {
    const { tokens } = store();
    tokens.update('https://old.example', RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'old' } }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    tokens.update('https://new.example', RESOURCE, (entry) => ({ ...entry, tokens: { access_token: 'new' } }));
    expect(tokens.find(RESOURCE)?.entry.tokens).toEqual({ access_token: 'new' });
    expect(tokens.forgetIssuer('https://new.example')).toBe(true);
    expect(tokens.find(RESOURCE)?.entry.tokens).toEqual({ access_token: 'old' });
  });
});
