import type { Conversation } from '../conversation/conversation.js';
import type { ApprovalDecision, ApprovalRequest } from '../execute/types.js';
import type { ElicitAnswer, ElicitRequest, McpInteraction, SampleAnswer, SampleRequest } from '../manager/mcp-client.js';

/** What the questions need of the running REPL. */
export interface McpQuestionsHost {
  /** Shows a yes/no question the way approvals are asked (y, n, a, Esc). */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  note(text: string): void;
  open(url: string): Promise<void>;
  conversation: Conversation;
}

/**
 * The REPL's answers to what MCP servers ask during a call. Created before the catalog opens (the
 * servers are told what the REPL answers when they start) and bound once the REPL runs; until
 * then, and after it left, every question is declined. Each question names the server (MCP
 * `client/elicitation.mdx`: clients MUST make clear which server asks) and is asked like an
 * approval: a one-question yes/no form, a page to open (its host shown first, as the spec
 * requires), a prompt for the conversation's model (with how many tokens at most). A form with
 * more fields is declined with a note: the REPL has no form editor yet.
 */
export class ReplMcpQuestions implements McpInteraction {
  readonly supports = { form: true, url: true, sampling: true };
  private host: McpQuestionsHost | undefined;
  private asked = 0;

  bind(host: McpQuestionsHost | undefined): void {
    this.host = host;
  }

  async elicit(request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer> {
    const host = this.host;
    if (!host) return { action: 'decline' };
    if (request.mode === 'url') {
      const yes = await this.ask(host, `MCP server "${request.server}" asks you to open a page on ${request.host}`, { url: request.url }, request.message, signal);
      return yes ? { action: 'accept' } : { action: 'decline' };
    }
    if (request.confirmation) {
      const yes = await this.ask(host, `MCP server "${request.server}" asks`, {}, request.message, signal);
      return yes ? { action: 'accept', content: { [request.confirmation]: true } } : { action: 'decline' };
    }
    if (request.defaults) {
      // The fields' values are the server's own defaults, shown like a call's arguments: yes sends them.
      const yes = await this.ask(host, `MCP server "${request.server}" asks to accept its defaults`, request.defaults, request.message, signal);
      return yes ? { action: 'accept', content: { ...request.defaults } } : { action: 'decline' };
    }
    host.note(`MCP server "${request.server}" asked "${request.message}" (a form of ${Object.keys(request.schema.properties).length} fields): declined; the REPL answers yes/no questions and forms whose every field has a default`);
    return { action: 'decline' };
  }

  async sample(request: SampleRequest, signal: AbortSignal): Promise<SampleAnswer> {
    const host = this.host;
    if (!host) return { declined: 'the REPL is not running' };
    const { conversation } = host;
    const prompt = request.messages.map((m) => m.text).join('\n').slice(0, 400);
    const yes = await this.ask(host, `MCP server "${request.server}" asks to run a prompt through ${conversation.provider} ${conversation.model} (at most ${request.maxTokens} tokens)`, { prompt }, 'sampling: your key and tokens pay for it', signal);
    if (!yes) return { declined: 'the user said no' };
    return conversation.sample({ server: request.server, ...(request.systemPrompt !== undefined ? { system: request.systemPrompt } : {}), messages: request.messages, maxTokens: request.maxTokens }, signal);
  }

  async open(url: string): Promise<void> {
    await this.host?.open(url);
  }

  note(text: string): void {
    this.host?.note(text);
  }

  private async ask(host: McpQuestionsHost, title: string, args: Record<string, unknown>, reason: string, signal: AbortSignal): Promise<boolean> {
    // Shown like an approval; the "tool" is the question's title (only its name is read).
    const request = { callId: `mcp-question-${++this.asked}`, tool: { name: title }, arguments: args, reason } as unknown as ApprovalRequest;
    const decision = await host.ask(request, signal);
    return decision === 'approve' || decision === 'always';
  }
}
