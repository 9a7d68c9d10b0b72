import type { Catalog } from '../catalog/types.js';
import type { Conversation } from '../conversation/conversation.js';
import type { ConversationOptions } from '../conversation/conversation-options.js';
import type { AgentLoopEvent } from '../loop/loop-events.js';

export type { AgentLoopEvent };

/**
 * What the agent runner needs from whoever owns it (the ToolManager): the catalog, conversations
 * over it for nested loops, and where the nested loops' events go.
 */
export interface AgentHost {
  readonly catalog: Catalog;
  conversation(options: ConversationOptions): Promise<Conversation>;
  onEvent?(event: AgentLoopEvent): void;
}
