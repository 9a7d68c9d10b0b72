import { ToolManager, type OpenOptions } from '../manager/tool-manager.js';
import { redactError } from '../shared/secrets.js';
import { catalogPaths } from './catalog-paths.js';
import type { CliIO } from './io.js';
import { reportMcpServers, reportMcpToolsChange } from './output/mcp-notes.js';

/**
 * Opens the catalog a command works on (--catalog files, else ./toolman.yaml) through the facade,
 * runs the command, and closes what the manager started whatever happens. Commands other than
 * `validate` refuse a catalog whose YAML or schema is broken.
 */
export async function withManager<T>(io: CliIO, catalogs: readonly string[] | undefined, run: (manager: ToolManager) => Promise<T>, options: Pick<OpenOptions, 'requireValid' | 'namedBy' | 'lock' | 'refreshMcp' | 'mcpInteraction' | 'mcpAuth'> & { mcpExitGraceMs?: number } = {}): Promise<T> {
  const { mcpExitGraceMs, ...openOptions } = options;
  const manager = await ToolManager.open({ catalogs: catalogPaths(io.cwd, catalogs), cwd: io.cwd, env: io.env, log: (text) => io.stderr.write(text), ...openOptions });
  // `validate` reports these as findings; every other command says them on stderr.
  if (options.requireValid !== false) reportMcpServers(io, manager);
  // A server whose tools changed (a "rug pull") is said the first time toolman sees it, by every command.
  const stopSaying = manager.onUnwatchedMcpChange((change) => reportMcpToolsChange(io, change));
  try {
    return await run(manager);
  } catch (error) {
    // Whatever failed may quote a secret (a proxy's error, a tool's message): said without it.
    throw redactError(error, manager.secrets);
  } finally {
    stopSaying();
    await manager.close(mcpExitGraceMs !== undefined ? { mcpExitGraceMs } : {});
  }
}
