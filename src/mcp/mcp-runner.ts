import { isToolmanError } from '../shared/errors.js';
import { limitProgress } from '../execute/progress-limit.js';
import { ToolFailure, type ToolRunner } from '../execute/runner.js';
import { plainText } from '../shared/plain-text.js';
import { errorText, renderCallResult } from './call-result.js';
import type { McpServers } from './mcp-servers.js';

/**
 * Runs MCP servers' tools: `tools/call` on the server's connection (started on first use), under
 * the tool's original MCP name. Progress notifications become the call's progress events; the
 * call's signal (timeout, Ctrl-C, a cancelled turn) sends `notifications/cancelled`. `isError`
 * results, JSON-RPC errors and a server that cannot be reached are tool errors for the model.
 */
export function createMcpRunner(servers: McpServers): ToolRunner<'mcp'> {
  return {
    kind: 'mcp',
    async run(handler, args, context) {
      let result;
      // A server decides how often and how much it reports: bounded before it becomes events.
      const limited = limitProgress(context.progress);
      try {
        const connection = await servers.connection(handler.server, context.signal);
        // toolman.lock: a tool left out of its server's current list must not run from an older copy.
        if (servers.isRefused(handler.server, handler.tool)) throw new ToolFailure(`${context.tool.name} was not run: toolman.lock pins it, and its server changed it (or itself) since; the user must review the change (toolman lock --update) before it runs`);
        const definition = servers.definition(handler.server, handler.tool);
        result = await connection.callTool(handler.tool, args, {
          signal: context.signal,
          timeoutMs: context.tool.timeoutMs,
          ...(definition ? { definition } : {}),
          relist: () => servers.relist(handler.server, handler.tool),
          onProgress: ({ progress, total, message }) =>
            limited.progress(plainText(typeof message === 'string' ? message : total !== undefined ? `${progress}/${total}` : String(progress)), {
              ...(typeof progress === 'number' && Number.isFinite(progress) ? { progress } : {}),
              ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
            }),
        });
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason;
        if (error instanceof ToolFailure) throw error;
        if (isToolmanError(error) || error instanceof Error) throw new ToolFailure(`${context.tool.name} failed: ${error.message}`);
        throw error;
      } finally {
        limited.close();
      }
      if (result.isError) throw new ToolFailure(errorText(result));
      return renderCallResult(result);
    },
  };
}
