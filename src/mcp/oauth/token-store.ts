import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { isRecord } from '../../shared/is-record.js';
import { writePrivateFile } from '../../shared/output-file.js';
import { readRegularFile } from '../../shared/read-file.js';
import { lstatOrUndefined, symlinkOnPath } from '../../shared/write-path.js';

/** A token file larger than this is not toolman's. */
const MAX_FILE_BYTES = 1 << 20;

/** What toolman keeps for one protected MCP server (a "resource", RFC 8707) of an authorization server. */
export interface ResourceEntry {
  /** The tokens as the authorization server issued them (with the SDK's `issuer` stamp). */
  tokens?: Record<string, unknown>;
  /** Where discovery found the authorization server (the SDK's discovery state), so a refresh needs no new discovery. */
  discovery?: Record<string, unknown>;
  /** A random id per login: cached private tool lists are kept per login, never per token (tokens rotate). */
  loginId?: string;
  savedAt?: number;
}

/** One authorization server's file: toolman's registration with it, and each server's tokens. */
export interface IssuerRecord {
  issuer: string;
  client?: Record<string, unknown>;
  resources: Record<string, ResourceEntry>;
}

/**
 * The OAuth tokens toolman holds, one file per authorization server ("issuer"), in
 * `$TOOLMAN_CONFIG_DIR/oauth/`, else `$XDG_CONFIG_HOME/toolman/oauth/`, else
 * `~/.config/toolman/oauth/`. The folder is 0700, each file 0600 and named by the sha256 of its
 * issuer, written aside and renamed, never through a symbolic link (the one private writer,
 * `shared/output-file.ts`). A file is read only when it is a regular file (no link), owned by the
 * user and readable by nobody else, and valid JSON of this shape; anything else is refused with
 * its path and why, so a planted or loosened file is never used.
 *
 * A plain file, not the system keychain: a keychain would keep the tokens from other programs of
 * the same user, but needs a native module per platform (SECURITY.md says why toolman does not).
 */
export class TokenStore {
  readonly folder: string;

  constructor(env: Record<string, string | undefined>) {
    this.folder = oauthFolder(env);
  }

  /** The record of an issuer, or an empty one. */
  read(issuer: string): IssuerRecord {
    return this.readFile(this.fileOf(issuer)) ?? { issuer, resources: {} };
  }

  /** Writes an issuer's record (0600, renamed into place); the folder is made 0700. */
  write(record: IssuerRecord): void {
    writePrivateFile(this.fileOf(record.issuer), JSON.stringify(record, null, 2) + '\n', { label: 'the OAuth token file', mode: 'replace', scope: { root: this.folder } });
    this.tighten();
  }

  /** The issuer and entry holding a server's tokens (by its canonical URL), if any login has it. */
  find(resource: string): { record: IssuerRecord; entry: ResourceEntry } | undefined {
    // Under several issuers (the server moved to another authorization server): the latest login.
    let found: { record: IssuerRecord; entry: ResourceEntry } | undefined;
    for (const record of this.all()) {
      const entry = record.resources[resource];
      if (entry && (!found || (entry.savedAt ?? 0) > (found.entry.savedAt ?? 0))) found = { record, entry };
    }
    return found;
  }

  /** Every issuer's record (a file that cannot be read is an error: it names the file). */
  all(): IssuerRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return [];
    }
    return names.filter((name) => /^[0-9a-f]{64}\.json$/.test(name)).flatMap((name) => this.readFile(join(this.folder, name)) ?? []);
  }

  /** Updates one server's entry under an issuer (a new login gets a new id). */
  update(issuer: string, resource: string, change: (entry: ResourceEntry) => ResourceEntry): void {
    const record = this.read(issuer);
    record.resources[resource] = { ...change(record.resources[resource] ?? {}), savedAt: Date.now() };
    this.write(record);
  }

  /** Forgets a server's tokens (every issuer); returns the issuers it was under. */
  forgetResource(resource: string): string[] {
    const issuers: string[] = [];
    for (const record of this.all()) {
      if (!record.resources[resource]) continue;
      delete record.resources[resource];
      issuers.push(record.issuer);
      if (Object.keys(record.resources).length === 0 && !record.client) this.remove(record.issuer);
      else this.write(record);
    }
    return issuers;
  }

  /** Forgets everything toolman holds for an issuer (its registration too). */
  forgetIssuer(issuer: string): boolean {
    const file = this.fileOf(issuer);
    if (lstatOrUndefined(file) === undefined) return false;
    this.remove(issuer);
    return true;
  }

  private remove(issuer: string): void {
    rmSync(this.fileOf(issuer), { force: true });
  }

  private fileOf(issuer: string): string {
    return join(this.folder, `${createHash('sha256').update(issuer).digest('hex')}.json`);
  }

  /** The folder is toolman's own: 0700 whatever made it looser. */
  private tighten(): void {
    try {
      const stats = lstatSync(this.folder);
      if (stats.isDirectory() && (stats.mode & 0o077) !== 0) chmodSync(this.folder, 0o700);
    } catch {
      // written just now: it exists
    }
  }

  private readFile(file: string): IssuerRecord | undefined {
    const refuse = (why: string, hint: string): never => {
      throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `the OAuth token file ${file} ${why}`, { hint });
    };
    let stats;
    try {
      stats = lstatSync(file);
    } catch {
      return undefined;
    }
    const link = symlinkOnPath(file, { root: this.folder });
    if (stats.isSymbolicLink() || link) refuse('is reached through a symbolic link; toolman does not follow one to a credential', `remove it (toolman mcp logout), or replace it with the file itself`);
    if (!stats.isFile()) refuse('is not a regular file', 'remove it');
    const me = process.getuid?.();
    if (me !== undefined && stats.uid !== me) refuse('belongs to another user', 'remove it; toolman only uses token files it wrote for you');
    if ((stats.mode & 0o077) !== 0) refuse(`can be read by other users (mode ${(stats.mode & 0o777).toString(8)})`, `chmod 600 ${file}, or log in again`);
    const text = readRegularFile(file, { maxBytes: MAX_FILE_BYTES, label: 'the OAuth token file' });
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      const at = position(text, error);
      refuse(`is not valid JSON${at ? ` (line ${at.line}, column ${at.column})` : ''}`, 'remove it and log in again: toolman mcp login NAME');
    }
    if (!isRecord(data) || typeof data.issuer !== 'string' || !isRecord(data.resources) || (data.client !== undefined && !isRecord(data.client)) || Object.values(data.resources).some((entry) => !isRecord(entry))) {
      refuse('is not a token file toolman wrote (an issuer, a client and resources)', 'remove it and log in again: toolman mcp login NAME');
    }
    const record = data as unknown as IssuerRecord;
    if (this.fileOf(record.issuer) !== file) refuse(`holds the issuer ${JSON.stringify(record.issuer.slice(0, 80))}, whose file is another`, 'remove it: it was copied or edited');
    return record;
  }
}

/** A new login's id (never derived from a token). */
export function newLoginId(): string {
  return randomUUID();
}

/** Where the token files are. */
export function oauthFolder(env: Record<string, string | undefined>): string {
  if (env.TOOLMAN_CONFIG_DIR) return join(env.TOOLMAN_CONFIG_DIR, 'oauth');
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(config, 'toolman', 'oauth');
}


/** Line and column of a JSON.parse error (Node says "at position N", or "line L column C"). */
function position(text: string, error: unknown): { line: number; column: number } | undefined {
  const message = error instanceof Error ? error.message : '';
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const at = /position (\d+)/.exec(message);
  if (!at) return undefined;
  const before = text.slice(0, Number(at[1]));
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}
