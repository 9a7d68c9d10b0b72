import type { Server } from '@modelcontextprotocol/server';
import type { Catalog, Tool } from '../catalog/types.js';
import { promptContributions } from '../manager/facts.js';
import type { SessionRequest, ToolManager } from '../manager/tool-manager.js';
import type { Selection } from '../select/select-tools.js';
import type { SearchMode } from '../session/tool-session.js';
import { DEFAULT_PARKED_LIMITS, ParkedCalls, type ParkedLimits } from './parked-calls.js';
import { ApprovalStates, type Principal } from './approval-state.js';
import type { CallSlots, ServeLimits } from './call-slots.js';
import { createModernServer, type ModernServerOptions, type ModernView } from './modern-server.js';
import { PrincipalSessions } from './principal-sessions.js';
import { DEFAULT_TASK_LIMITS, ServedTasks, type TaskLimits } from './served-tasks.js';
import { buildListing } from './tool-listing.js';

const SEARCH_NOTES: Record<SearchMode, string> = {
  tool_search: 'Some tools of this catalog are not listed until tool_search finds them; the list changes when it does.',
  discover: 'Some tools of this catalog are not listed: discover_tools finds them, get_tool_schema shows one; call one by its name (or through invoke_tool).',
};

/**
 * The server's `instructions`: the catalog's description and the listed tools' prompt
 * contributions (what `chat` puts in the system prompt), each once, since MCP has no per-turn
 * place for reminders; and a note on finding deferred tools.
 */
export function serverInstructions(catalog: Catalog, selection: Selection, searchMode: SearchMode): string {
  const prompts = promptContributions(selection.active.filter((t) => !t.native), { citations: false });
  const deferred = selection.deferred.length > 0;
  return [catalog.description, ...prompts.system, ...prompts.user, ...prompts.reminders, deferred ? SEARCH_NOTES[searchMode] : undefined].filter(Boolean).join('\n\n');
}

export interface ModernServingOptions extends Omit<ModernServerOptions, 'view' | 'principals' | 'approvals' | 'parked' | 'tasks'> {
  /** Bounds of the tasks extension's tasks (tests shorten their lifetime). */
  taskLimits?: TaskLimits;
  /** Bounds of the calls that wait for answers to their upstream servers' questions (tests shorten the wait). */
  parkedLimits?: ParkedLimits;
  request: Omit<SessionRequest, 'searchMode'>;
  limits: ServeLimits;
  total: CallSlots;
}

/**
 * Everything the 2026-07-28 era shares across requests: the view of the catalog (listing,
 * deferred tools, instructions: built once per catalog, rebuilt when an MCP server's tools
 * change), the principals' sessions, and the approval states. Sessions of this era always find
 * deferred tools through the discover meta-tools: `tool_search` makes found tools join the list,
 * which this era's lists may not do.
 */
export class ModernServing {
  private current: { catalog: Catalog; view: ModernView } | undefined;
  readonly principals: PrincipalSessions;
  readonly approvals = new ApprovalStates();
  readonly parked: ParkedCalls;
  readonly tasks: ServedTasks;

  private constructor(
    private readonly manager: ToolManager,
    private readonly options: ModernServingOptions,
  ) {
    this.parked = new ParkedCalls(options.parkedLimits ?? DEFAULT_PARKED_LIMITS, options.log);
    // A task lives no longer than its principal's state would with nobody asking (`--idle-timeout`): its result lives there.
    const taskLimits = options.taskLimits ?? DEFAULT_TASK_LIMITS;
    this.tasks = new ServedTasks({ ...taskLimits, ttlMs: Math.min(taskLimits.ttlMs, options.limits.idleTimeoutMs) });
    this.principals = new PrincipalSessions({
      open: () => manager.session({ ...options.request, searchMode: 'discover' }),
      maxPrincipals: options.limits.maxSessions,
      idleTimeoutMs: options.limits.idleTimeoutMs,
      maxCallsPerPrincipal: options.limits.maxCallsPerSession,
      log: options.log,
      onDrop: (key) => {
        this.approvals.forget(key);
        this.tasks.forget(key);
      },
    });
  }

  static async open(manager: ToolManager, options: ModernServingOptions): Promise<ModernServing> {
    const serving = new ModernServing(manager, options);
    await serving.refresh();
    return serving;
  }

  /** Builds the view again when the catalog changed since; says whether it did. */
  async refresh(): Promise<boolean> {
    const catalog = this.manager.catalog;
    if (this.current?.catalog === catalog) return false;
    const session = await this.manager.session({ ...this.options.request, searchMode: 'discover' });
    try {
      // Provider-native tools run at the model provider: an MCP client has no way to use them.
      const tools: Tool[] = session.offered(1).tools.filter((t) => !t.native);
      const view: ModernView = {
        listing: buildListing(tools, 'modern'),
        deferred: new Map(session.selection.deferred.filter((t) => !t.native).map((t) => [t.name, t])),
        instructions: serverInstructions(catalog, session.selection, 'discover'),
      };
      const changed = this.current !== undefined && this.current.view.listing.hash !== view.listing.hash;
      // Sessions over the old catalog would run old definitions: each principal gets a new one.
      if (this.current) this.principals.retire();
      this.current = { catalog, view };
      return changed;
    } finally {
      session.close();
    }
  }

  view(): ModernView {
    return this.current!.view;
  }

  /** A tool a request may name: listed or deferred. */
  tool(name: string): Tool | undefined {
    const view = this.view();
    return view.listing.byName.get(name) ?? view.deferred.get(name);
  }

  /** What every server instance is built over: made once (spread per request, it was a tenth of building an instance, issue 24). */
  private serverOptions: ModernServerOptions | undefined;

  /** A server instance for one request (HTTP) or one connection (stdio) of `principal`. */
  server(principal: Principal): Server {
    this.serverOptions ??= { ...this.options, view: () => this.view(), principals: this.principals, approvals: this.approvals, parked: this.parked, tasks: this.tasks };
    return createModernServer(this.serverOptions, principal);
  }

  close(): void {
    this.parked.close();
    this.tasks.close();
    this.principals.close();
  }
}
