import { createHash } from 'node:crypto';
import type { McpServerConfig } from '../catalog/types.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { launchKey } from '../mcp/server-launch.js';

/**
 * What identifies a server in toolman.lock: the tool-list cache's launch key (command, arguments,
 * working folder and the entry's own `env`; or URL and headers), taken over the entry **as
 * written**: `cwd` as the catalog says it and `${env:NAME}` unfilled. The cache's key is over the
 * resolved launch (absolute folder, secret values filled), which differs on every machine and
 * would hold a hash of each secret; the lock is committed and shared, so it must be the same for
 * everyone and hold nothing secret. `sha256:<hex>` of the key's canonical JSON.
 */
export function launchIdentity(config: Pick<McpServerConfig, 'name' | 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers'>): string {
  const key =
    config.url !== undefined
      ? launchKey({ kind: 'http', name: config.name, url: config.url, headers: config.headers, timeoutMs: 0 })
      : launchKey({ kind: 'stdio', name: config.name, command: config.command ?? '', args: config.args, cwd: config.cwd ?? '', env: config.env, timeoutMs: 0 });
  return `sha256:${createHash('sha256').update(canonicalJson(key)).digest('hex')}`;
}

/** The server as messages name it: `npx -y pkg` or the URL without its query (which may hold a token). */
export function describeEntry(config: Pick<McpServerConfig, 'command' | 'args' | 'url'>): string {
  if (config.url !== undefined) return config.url.replace(/[?#].*$/s, '');
  return [config.command ?? '', ...config.args].map((a) => (/^[\w@%+=:,./${}-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** A server's name and version as it reports them (`serverInfo`), each cut to a sane length. */
export interface ServerInfo {
  name: string;
  version: string;
}
