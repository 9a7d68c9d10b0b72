import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, ProtocolError, Server, type CacheScope, type ClientCapabilities, type CallToolResult, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { Tool } from '../catalog/types.js';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../execute/types.js';
import { nearest } from '../shared/did-you-mean.js';
import { isRecord } from '../shared/is-record.js';
import type { ToolSession } from '../session/tool-session.js';
import type { SecretSet } from '../shared/secrets.js';
import type { ApprovalStates, Principal, StateClaim } from './approval-state.js';
import type { CallSlots } from './call-slots.js';
import { busyResult, runCall, type CallRunResult } from './call-runner.js';
import { mayBeAsked, withCallAsker, type CallAsker, type ElicitRequest } from '../manager/mcp-client.js';
import { modernRounds, type QuestionRelay } from './question-rounds.js';
import { withUnanswered } from './relayed-questions.js';
import type { ParkedCalls } from './parked-calls.js';
import { toCallToolResult } from './call-result.js';
import { approvalForm, approvalMessage, canAskForm, decisionOf } from './elicit-approval.js';
import { cannotAskText } from './session-server.js';
import { listPage, type Listing } from './tool-listing.js';
import { serverCapabilities, servePromptsAndResources, type PromptsAndResources } from './prompts-and-resources.js';
import { PrincipalsFull, type PrincipalSessions, type PrincipalState } from './principal-sessions.js';
import { TASKS_EXTENSION, type ServedTasks } from './served-tasks.js';
import { createTaskResult, declaresTasks, serveTasks } from './task-handlers.js';
import { errorLine } from './error-line.js';

/** What a started call leaves for its answer: the run's outcome, and whether it needs toolman's own approval question. */
interface StartedCall {
  tool: Tool;
  session: ToolSession;
  outcome: CallRunResult;
  /** The call needs approval and the client can be asked: `input_required` with the approval form. */
  ask?: ApprovalRequest;
  /** The call needed approval and the client cannot be asked: why. */
  unasked?: string;
}

/** The meta-tools that name a job: answered by the session that runs it. */
const JOB_TOOLS: ReadonlySet<string> = new Set(['job_status', 'job_result', 'job_next', 'job_stop']);

/** How long a client may keep the tool list (and the discover result) without asking again: the spec's own example value (`server/tools.mdx`). */
export const LIST_TTL_MS = 300_000;

/** The key of toolman's approval question in `inputRequests` / `inputResponses`. */
const APPROVAL_KEY = 'approval';

/** What every 2026-07-28 server instance shares: built once per catalog, not per request. */
export interface ModernView {
  listing: Listing;
  /** Deferred tools: never listed, callable by name (and through the discover meta-tools). */
  deferred: ReadonlyMap<string, Tool>;
  instructions: string;
}

export interface ModernServerOptions {
  name: string;
  version: string;
  title?: string;
  view(): ModernView;
  /** Prompts and resources (today none; the gateway's later). */
  promptsAndResources: PromptsAndResources;
  principals: PrincipalSessions;
  approvals: ApprovalStates;
  /** Calls waiting for the client's answers to their upstream servers' questions. */
  parked: ParkedCalls;
  /** Background calls made tasks for clients that declare the tasks extension. */
  tasks: ServedTasks;
  /** `public` without authentication, `private` with it (spec `server/utilities/caching.mdx`: a list behind a token is not shared across tokens). */
  cacheScope: CacheScope;
  yes: boolean;
  secrets: SecretSet;
  total: CallSlots;
  stop: AbortSignal;
  log(line: string): void;
  verbose: boolean;
}

/**
 * One `Server` for 2026-07-28 requests (built per HTTP request, or once per stdio connection),
 * over the principal's toolman session. Nothing a request does changes what another request is
 * told (spec `server/tools.mdx`: the list "MUST NOT vary per-connection or as a side effect of
 * other requests"; read 2026-11-24): `tools/list` is the profile's active tools in catalog order
 * and the meta-tools, in pages, with a five-minute cache hint; deferred tools are found with the
 * discover meta-tools and called by name. A call that needs approval answers `input_required`
 * with a form and a sealed `requestState`, and runs when the client retries with the answer.
 */
export function createModernServer(options: ModernServerOptions, principal: Principal): Server {
  // The view as the instance starts: its instructions. Handlers read the view anew each time (an
  // instance lives for a whole stdio connection, across catalog changes).
  const view = options.view();
  const hint = { ttlMs: LIST_TTL_MS, cacheScope: options.cacheScope };
  const server = new Server(
    { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) },
    {
      // The tasks extension is advertised in `server/discover` (ext-tasks `specification/draft/tasks.md` §Capability Negotiation).
      capabilities: { ...serverCapabilities(options.promptsAndResources), extensions: { [TASKS_EXTENSION]: {} } } as ReturnType<typeof serverCapabilities>,
      ...(view.instructions ? { instructions: view.instructions } : {}),
      cacheHints: { 'tools/list': hint, 'server/discover': hint, 'prompts/list': hint, 'resources/list': hint, 'resources/templates/list': hint },
      requestState: { verify: options.approvals.verify },
    },
  );

  const relay: QuestionRelay = { parked: options.parked, approvals: options.approvals, secrets: options.secrets, log: options.log };
  server.setRequestHandler('tools/list', (request) => listPage(options.view().listing, request.params?.cursor));
  servePromptsAndResources(server, options.promptsAndResources, { era: 'modern', relay, principal });
  serveTasks(server, options.tasks, options.principals, principal, options.stop);

  server.setRequestHandler('tools/call', async (request, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const view = options.view();
    let state: PrincipalState;
    try {
      state = await options.principals.get(principal.key);
    } catch (error) {
      if (!(error instanceof PrincipalsFull)) throw error;
      options.log(`turned a call away: ${error.message}`);
      return busyResult(`toolman serve is busy: ${error.message}`);
    }
    const tool = reachable(state.session, view, name);
    if (!tool) {
      const close = nearest(name, view.listing.mcp.map((t) => t.name));
      throw new ProtocolError(-32602, `Unknown tool: ${name}` + (close.length ? ` (did you mean ${close.join(', ')}?)` : ''));
    }
    // A retry that answers a question: its state was verified (MAC, expiry, principal, method)
    // before this handler ran; it must be for this very call, and is spent now. An approval's
    // answer runs the call; an upstream server's question's answer goes to the call that waits.
    let answer: ApprovalDecision | undefined;
    let resume: StateClaim | undefined;
    const claim = ctx.mcpReq.requestState();
    if (claim !== undefined) {
      resume = options.approvals.redeem(claim, name, args);
      if (resume.q === undefined) {
        const response = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_KEY);
        if (response.kind === 'elicit') answer = decisionOf(response.action, response.content);
      }
    }
    const id = String(ctx.mcpReq.id);
    const start = async (asker: CallAsker | undefined, signal: AbortSignal): Promise<StartedCall> => {
      const started: StartedCall = { tool, session: state.session, outcome: undefined as never };
      let first = true;
      const approve: Approver = async (approval) => {
        const top = first && approval.callId === id;
        first = false;
        if (options.yes || options.approvals.isRemembered(principal, approval.tool.name)) return 'approve';
        if (!top) {
          // A tool that runs tools itself (a sub-agent) asks midway, after it started: this era
          // has no way to ask then (no server-to-client requests, `basic/transports/streamable-http.mdx`),
          // so the sub-agent is told its tool was declined.
          options.log(`declined: ${approval.reason}, asked while a call was running; a 2026-07-28 client can only approve a call before it starts (--yes approves all)`);
          return 'decline';
        }
        if (answer !== undefined) {
          if (answer === 'always') options.approvals.remember(principal, approval.tool.name);
          return answer === 'decline' ? 'decline' : 'approve';
        }
        // What this request says its client can do (the `_meta` envelope, `basic/index.mdx` §_meta).
        const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
        if (!canAskForm(capabilities, 'modern')) {
          started.unasked = approval.reason;
          options.log(`declined: ${approval.reason} and needs approval; the client cannot ask the user (no elicitation) and --yes was not given`);
          void ctx.mcpReq.log('warning', cannotAskText(approval.reason), 'toolman').catch(() => undefined);
          return 'decline';
        }
        started.ask = approval;
        return 'decline';
      };
      // Job tools answer from the session that runs the job (an older one after the catalog changed).
      const owner = JOB_TOOLS.has(tool.name) && isRecord(args) && typeof args.job_id === 'string' ? state.jobs.get(args.job_id) : undefined;
      started.session = owner ?? state.session;
      if (view.deferred.has(tool.name) && !started.session.isCallable(tool.name)) started.session.activate([tool.name]);
      const call = () =>
        runCall({
          session: started.session,
          tool,
          arguments: args,
          id,
          signal,
          stop: options.stop,
          approve,
          ...(request.params._meta?.progressToken !== undefined ? { progressToken: request.params._meta.progressToken } : {}),
          // Progress goes on the first request's stream; after a question it has ended, and progress is dropped.
          notify: (notification) => ctx.mcpReq.notify(notification).catch(() => undefined),
          slots: { session: state.slots, total: options.total },
          log: options.log,
          verbose: options.verbose,
        });
      started.outcome = asker ? await withCallAsker(asker, call) : await call();
      return started;
    };
    // A call no MCP server can ask anything (see mayBeAsked) runs on the request's own signal,
    // without the rounds' background call, its controller and async context.
    let done: { value: StartedCall; unanswered: readonly ElicitRequest[] };
    if (resume?.q === undefined && !mayBeAsked(tool)) done = { value: await start(undefined, ctx.mcpReq.signal), unanswered: [] };
    else {
      const round = await modernRounds(relay, ctx, principal, { name, args }, resume, start);
      if (round.kind === 'input_required') return round.result;
      done = { value: round.value, unanswered: round.call.unanswered };
    }
    const { outcome, ask, unasked, session } = done.value;
    if (!outcome.ran) {
      void ctx.mcpReq.log('warning', outcome.busy, 'toolman').catch(() => undefined);
      return busyResult(outcome.busy);
    }
    const { response } = outcome;
    if (response.job_id) options.principals.addJob(state, response.job_id, session);
    if (ask) {
      return inputRequired({
        inputRequests: { [APPROVAL_KEY]: inputRequired.elicit({ message: approvalMessage(ask, options.secrets), requestedSchema: approvalForm(principal.authenticated) }) },
        requestState: await options.approvals.mint(name, args, ctx),
      });
    }
    // A background job for a client that declared the tasks extension on this request: a task
    // handle instead of the job id in a result (the server decides per request; a client that did
    // not declare it never gets one: ext-tasks §Capability Negotiation).
    if (response.ok && response.job_id && done.value.tool.mode === 'background' && declaresTasks(ctx.mcpReq.envelope)) {
      const task = options.tasks.create(principal.key, response.job_id, session, done.value.tool.name);
      if (task) return createTaskResult(options.tasks, task) as unknown as CallToolResult;
      options.log(`no room for another task (${options.tasks.limits.maxPerPrincipal} per client, ${options.tasks.limits.maxTotal} in all): ${done.value.tool.name} answered with its job id instead`);
    }
    const errorText = response.error_kind === 'declined' && unasked ? cannotAskText(unasked) : undefined;
    const result = toCallToolResult(response, { ...(errorText ? { errorText } : {}), anyJson: done.value.tool.outputSchema !== undefined });
    return done.unanswered.length ? withUnanswered(result, done.unanswered, options.secrets) : result;
  });

  server.onerror = (error) => options.log(errorLine('protocol error', error));
  return server;
}

/** The tool a call names when this client may reach it: listed, or deferred (never removed, never provider-native). */
function reachable(session: ToolSession, view: ModernView, name: string): Tool | undefined {
  const tool = session.resolve(name);
  if (!tool || tool.native) return undefined;
  return view.listing.byName.has(tool.name) || view.deferred.has(tool.name) ? tool : undefined;
}
