import type { Catalog } from '../catalog/types.js';
import type { LoopEvent } from '../loop/loop-events.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import type { ToolSession } from '../session/tool-session.js';

/** One event of a nested loop, with the agent and the parent's call it belongs to. */
export interface AgentLoopEvent {
  agent: string;
  /** The parent's call id: the section of the parent's transcript this event belongs to. */
  call_id: string;
  /** 1 for an agent the parent called, 2 for one that agent called... */
  depth: number;
  event: LoopEvent;
}

/**
 * What the agent runner needs from whoever owns it (the ToolManager): the catalog, sessions over
 * it for nested loops, and where the nested loops' events go.
 */
export interface AgentHost {
  readonly catalog: Catalog;
  session(request: { profile?: string; provider: ProviderName; model: string; format: FormatOptions }): Promise<ToolSession>;
  onEvent?(event: AgentLoopEvent): void;
}
