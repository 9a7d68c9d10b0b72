import { AsyncLocalStorage } from 'node:async_hooks';
import { ToolFailure, type ToolRunner } from '../execute/runner.js';
import type { A2aState, AgentTask } from './a2a-agent.js';
import type { AgentHost } from './agent-host.js';

/** How deep agents may call agents (a local agent whose tools include another agent...). */
export const MAX_AGENT_DEPTH = 3;

/** The chain of agents the current call runs inside; async context follows it into nested loops. */
const chain = new AsyncLocalStorage<readonly string[]>();

/**
 * The `agent` runner: an agent entry's call hands its task to a remote agent over A2A or to a
 * nested toolman loop, by the entry's config. Both are loaded on first use (the A2A SDK only when
 * an a2a agent is called). An agent already running in the chain of the current call refuses
 * (an agent that calls itself, directly or through another), and so does one past the depth limit.
 */
export function createAgentRunner(host: AgentHost): ToolRunner<'agent'> {
  const a2a: A2aState = { cards: new Map(), pending: new Set() };
  return {
    kind: 'agent',
    async run(handler, args, context) {
      const name = handler.agent;
      const config = host.catalog.agents.get(name);
      if (!config) throw new ToolFailure(`${context.tool.name} names the agent "${name}", which the catalog does not define`);
      const outer = chain.getStore() ?? [];
      if (outer.includes(name)) {
        throw new ToolFailure(`${name} refused: it is already running in this chain (${[...outer, name].join(' → ')}); an agent cannot call itself`);
      }
      if (outer.length >= MAX_AGENT_DEPTH) {
        throw new ToolFailure(`${name} refused: agents are already nested ${outer.length} deep (${outer.join(' → ')}); the limit is ${MAX_AGENT_DEPTH}`);
      }
      const task = taskOf(args);
      return chain.run([...outer, name], async () => {
        if (config.a2a) {
          const { runA2aAgent } = await import('./a2a-agent.js');
          return runA2aAgent(name, config.a2a, task, context, a2a);
        }
        if (config.local) {
          const { runLocalAgent } = await import('./local-agent.js');
          const text = task.data ? `${task.text}\n\n${JSON.stringify(task.data, null, 2)}` : task.text;
          return runLocalAgent(name, config.local, text, context, host, outer.length + 1);
        }
        throw new ToolFailure(`${name} has neither a2a nor local settings, so there is nothing to hand the task to`);
      });
    },
    async close() {
      // Cancellations of remote tasks still on their way (each bounded by its own timeout).
      await Promise.allSettled([...a2a.pending]);
    },
  };
}

/** The arguments as a task: `task` is the text; any other arguments go along as data. */
export function taskOf(args: Record<string, unknown>): AgentTask {
  const { task, ...rest } = args;
  const extra = Object.keys(rest).length > 0 ? rest : undefined;
  if (typeof task === 'string') return { text: task, ...(extra ? { data: extra } : {}) };
  return { text: JSON.stringify(args), ...(Object.keys(args).length ? { data: args } : {}) };
}
