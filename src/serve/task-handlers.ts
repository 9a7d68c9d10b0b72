import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, ProtocolError, type Server, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { isRecord } from '../shared/is-record.js';
import type { Principal } from './approval-state.js';
import { toCallToolResult } from './call-result.js';
import type { PrincipalSessions } from './principal-sessions.js';
import { TASKS_EXTENSION, type ServedTask, type ServedTasks } from './served-tasks.js';

/** Whether this request's client declared the tasks extension (its `_meta` envelope's capabilities; the spec asks per request, never from an earlier one). */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = isRecord(envelope) ? envelope[CLIENT_CAPABILITIES_META_KEY] : undefined;
  const extensions = isRecord(capabilities) ? capabilities.extensions : undefined;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** What `tools/call` answers instead of its result when the call became a task (`CreateTaskResult`, `resultType: "task"`). */
export function createTaskResult(tasks: ServedTasks, task: ServedTask): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(tasks, task, tasks.status(task)), _meta: { 'toolman/job_id': task.jobId } };
}

interface TaskParams {
  taskId: string;
}

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` on a 2026-07-28 server instance of `principal`.
 * SDK 2.4.0 has no responder for the extension, but lets a server register handlers for methods
 * it does not know when they come with schemas of their own (its three-argument
 * `setRequestHandler`, which is also what lets `tasks/get` and `tasks/cancel`, removed from the
 * 2026-07-28 core, through); the params are checked by the small schemas below. The SDK checks the
 * `Mcp-Name` header against `params.taskId` for these methods before any of this runs.
 */
export function serveTasks(server: Server, tasks: ServedTasks, principals: PrincipalSessions, principal: Principal, stop: AbortSignal): void {
  // The spec's §Error Handling: a client that did not declare the extension gets -32021 for each method.
  const owned = async (params: TaskParams, envelope: unknown): Promise<ServedTask> => {
    if (!declaresTasks(envelope)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as never });
    const task = tasks.find(principal.key, params.taskId);
    // Not found, expired, or another principal's: one answer (`-32602`, the spec's for an unknown id).
    if (!task) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
    // Polling keeps the principal's state (and so its session and the task's job) from going idle.
    await principals.get(principal.key).catch(() => undefined);
    return task;
  };

  server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async (params, ctx) => {
    const task = await owned(params, ctx.mcpReq.envelope);
    const status = tasks.status(task);
    if (status === 'completed') task.result ??= await finalResult(task, stop);
    if (status !== 'working' && task.lastUpdatedAt === task.createdAt) task.lastUpdatedAt = Date.now();
    return { resultType: 'complete', ...taskFields(tasks, task, status), ...(status === 'completed' ? { result: task.result } : {}) };
  });

  server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async (params, ctx) => {
    await owned(params, ctx.mcpReq.envelope);
    // toolman's tasks never wait for input: a call's approval is asked before it starts, on the
    // call itself (the spec's §Task Creation: a server SHOULD resolve such exchanges before it
    // returns the task). So no key is ever outstanding, and the spec says to ignore responses
    // to keys that are not ("SHOULD ignore any inputResponses ... mapped to a key that is not
    // currently outstanding"): the acknowledgement is all.
    return { resultType: 'complete' };
  });

  server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async (params, ctx) => {
    const task = await owned(params, ctx.mcpReq.envelope);
    if (tasks.status(task) === 'working') {
      task.cancelRequested = true;
      task.session.executor.cancelJob(task.jobId);
      task.lastUpdatedAt = Date.now();
    }
    return { resultType: 'complete' };
  });
}

/** The `Task` fields (the spec's §Tasks): ISO 8601 times, the TTL from creation and the polling hint. */
function taskFields(tasks: ServedTasks, task: ServedTask, status: string): Record<string, unknown> {
  const message = status === 'working' ? `${task.tool} is running` : status === 'cancelled' ? `${task.tool} was cancelled` : undefined;
  return {
    taskId: task.id,
    status,
    ...(message ? { statusMessage: message } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: tasks.limits.ttlMs,
    pollIntervalMs: tasks.limits.pollIntervalMs,
  };
}

/**
 * The job's result as the call would have answered it: read through the session's own
 * `job_result`, so it is redacted and cut exactly as the job tools' answers are. A tool's failure
 * is a `completed` task with an `isError` result (the spec's §Task Execution Errors: `failed` is
 * only for JSON-RPC errors, which a toolman job does not end with).
 */
async function finalResult(task: ServedTask, stop: AbortSignal): Promise<Record<string, unknown>> {
  const turn = await task.session.runTurn([{ id: `${task.id}/result`, name: 'job_result', arguments: { job_id: task.jobId } }], { signal: stop, approve: async () => 'decline' });
  const result = toCallToolResult(turn.responses[0]!);
  return { ...result, _meta: { ...result._meta, 'toolman/job_id': task.jobId } };
}

/** A Standard Schema for `{taskId}`, written here: the SDK takes any Standard Schema, and two fields need no schema library. */
const TASK_PARAMS: StandardSchemaV1<unknown, TaskParams> = {
  '~standard': {
    version: 1,
    vendor: 'toolman',
    validate: (value: unknown) => {
      if (!isRecord(value) || typeof value.taskId !== 'string') return { issues: [{ message: 'params.taskId must be a string' }] };
      // `inputResponses` is not checked: the SDK lifts it out of the params (as for a retried call) before they reach here, and every key is ignored anyway.
      return { value: { taskId: value.taskId } };
    },
  },
};
