import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ServeLimits } from '../../src/serve/call-slots.js';
import { relayInteraction } from '../../src/manager/mcp-client.js';
import type { ParkedLimits } from '../../src/serve/parked-calls.js';
import type { TaskLimits } from '../../src/serve/served-tasks.js';
import type { RequestAuthorizer } from '../../src/serve/http-host.js';
import type { PromptsAndResources } from '../../src/serve/prompts-and-resources.js';
import { CatalogGateway } from '../../src/serve/gateway.js';
import { serveMcp } from '../../src/serve/serve-mcp.js';
import { ROOT } from '../helpers/paths.js';
import { SERVE_CATALOG } from './serve-client.js';

export interface InProcessServer {
  url: string;
  /** What the server told the operator, one line each. */
  stderr(): string;
  /** Stops the server and closes its manager. */
  close(): Promise<void>;
}

/**
 * `toolman serve --port 0` in this process, for tests of what the server does rather than of the
 * process (the flags are tested on the built binary, test/cli/serve.test.ts).
 */
export async function serveInProcess(options: { catalog?: string; yes?: boolean; verbose?: boolean; limits?: Partial<ServeLimits>; token?: string; authorizer?: RequestAuthorizer; promptsAndResources?: PromptsAndResources; requireValid?: false; relay?: boolean; gateway?: boolean; parkedLimits?: ParkedLimits; taskLimits?: TaskLimits; env?: Record<string, string> } = {}): Promise<InProcessServer> {
  const lines: string[] = [];
  // As `toolman serve` opens it: the catalog's MCP servers' questions go to serve's clients.
  const relay = options.relay ? { mcpInteraction: relayInteraction((line) => lines.push(line)) } : {};
  const manager = await ToolManager.open({ catalogs: [options.catalog ?? SERVE_CATALOG], cwd: ROOT, env: { TOOLMAN_CACHE_DIR: 'off', ...options.env }, requireValid: options.requireValid ?? 'all', ...relay });
  const stop = new AbortController();
  // As `toolman serve` does: the catalog's MCP servers' prompts and resources passed through.
  const gateway = options.gateway ? await CatalogGateway.open(manager, (line) => lines.push(line)) : undefined;
  const promptsAndResources = options.promptsAndResources ?? gateway;
  const running = await serveMcp(manager, {
    yes: options.yes ?? false,
    verbose: options.verbose ?? false,
    version: '0.0.0',
    log: (line) => lines.push(line),
    signal: stop.signal,
    http: { host: '127.0.0.1', port: 0, ...(options.token ? { token: options.token } : {}), ...(options.authorizer ? { authorizer: options.authorizer } : {}) },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(promptsAndResources ? { promptsAndResources } : {}),
    ...(options.parkedLimits ? { parkedLimits: options.parkedLimits } : {}),
    ...(options.taskLimits ? { taskLimits: options.taskLimits } : {}),
  });
  return {
    url: running.url!,
    stderr: () => lines.join('\n'),
    close: async () => {
      stop.abort();
      await running.close();
      gateway?.close();
      await manager.close();
    },
  };
}
