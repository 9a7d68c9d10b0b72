import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { SecretSet } from '../shared/secrets.js';

/** Always passed to programs, and not secret: never counted as such even when an allow-list names them. */
const ORDINARY = new Set(['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'HOME', 'USER', 'SHELL', 'TERM', 'PWD']);

/**
 * The environment variables a catalog names as secret: every `${env:NAME}` in any of its files
 * (handlers, MCP servers, agents, wherever it appears) and every name in an exec handler's `env`
 * allow-list. Read from the files' text, so nothing the catalog can reference is missed.
 */
export function secretNames(loaded: LoadedCatalog): Set<string> {
  const names = new Set<string>();
  for (const file of loaded.sources.values()) if (file.includes('${env:')) for (const match of file.text.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(match[1]!);
  for (const tool of loaded.catalog.tools) if (tool.handler?.kind === 'exec') for (const name of tool.handler.exec.env ?? []) names.add(name);
  for (const name of ORDINARY) names.delete(name);
  return names;
}

/** The values of those variables in `env`, ready to redact from the first line toolman prints. */
export function catalogSecrets(loaded: LoadedCatalog, env: Record<string, string | undefined>): SecretSet {
  const secrets = new SecretSet();
  for (const name of secretNames(loaded)) {
    const value = env[name];
    if (value !== undefined) secrets.add(value);
  }
  return secrets;
}
