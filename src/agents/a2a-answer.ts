import { Role, TaskState, type Artifact, type Message, type Part, type TaskStatus } from '@a2a-js/sdk';
import { ToolFailure } from '../execute/runner.js';
import { untrustedText } from './untrusted-text.js';

/** How much of a remote agent's answer becomes the tool's result (the executor truncates further to max_result_tokens). */
export const MAX_ANSWER_CHARS = 200_000;

/** The state of a task as one word, as people read it in progress lines and errors. */
export function stateName(state: TaskState | undefined): string {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return 'submitted';
    case TaskState.TASK_STATE_WORKING:
      return 'working';
    case TaskState.TASK_STATE_COMPLETED:
      return 'completed';
    case TaskState.TASK_STATE_FAILED:
      return 'failed';
    case TaskState.TASK_STATE_CANCELED:
      return 'canceled';
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return 'input-required';
    case TaskState.TASK_STATE_REJECTED:
      return 'rejected';
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return 'auth-required';
    default:
      return 'unknown';
  }
}

/** States after which the agent does no more on its own. */
export function isFinal(state: TaskState | undefined): boolean {
  return state !== undefined && state !== TaskState.TASK_STATE_SUBMITTED && state !== TaskState.TASK_STATE_WORKING && state !== TaskState.TASK_STATE_UNSPECIFIED && state !== TaskState.UNRECOGNIZED;
}

/** A part as text for a model: text as it is, data as JSON, files described (never fetched). */
function partText(part: Part): string {
  const content = part.content;
  switch (content?.$case) {
    case 'text':
      return content.value;
    case 'data':
      return JSON.stringify(content.value ?? null, null, 2) ?? 'null';
    case 'url':
      return `[file${part.filename ? ` ${part.filename}` : ''}${part.mediaType ? ` (${part.mediaType})` : ''}: ${content.value}]`;
    case 'raw':
      return `[file${part.filename ? ` ${part.filename}` : ''}${part.mediaType ? ` (${part.mediaType})` : ''}, ${content.value?.length ?? 0} bytes, not shown]`;
    default:
      return '';
  }
}

/** The text of a message or status (for progress lines and error messages). */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map(partText).filter(Boolean).join('\n');
}

/**
 * The tool's result from the parts an agent answered with. One data part alone stays JSON (the
 * model gets structure, not a string of it); anything else becomes text, each artifact under its
 * name when there are several. Everything is cleaned and cut as untrusted text.
 */
export function answerFromParts(groups: { name?: string; parts: Part[] }[]): unknown {
  const parts = groups.flatMap((g) => g.parts);
  if (parts.length === 1 && parts[0]!.content?.$case === 'data') {
    const value = parts[0]!.content.value ?? null;
    const text = JSON.stringify(value);
    if (text !== undefined && text.length <= MAX_ANSWER_CHARS) return value;
  }
  const titled = groups.length > 1;
  const text = groups
    .map((g) => {
      const body = g.parts.map(partText).filter(Boolean).join('\n\n');
      return titled && g.name ? `## ${g.name}\n\n${body}` : body;
    })
    .filter(Boolean)
    .join('\n\n');
  return untrustedText(text, MAX_ANSWER_CHARS);
}

/** The answer a task in its last state gives, or the failure it is (named for the agent, with its own words). */
export function taskOutcome(agent: string, task: { status: TaskStatus | undefined; artifacts: Artifact[]; history?: Message[] }): unknown {
  const state = task.status?.state;
  const said = untrustedText(messageText(task.status?.message), 2_000).trim();
  const because = said ? `: ${said}` : '';
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED: {
      if (task.artifacts.length) return answerFromParts(task.artifacts.map((a) => ({ name: a.name, parts: a.parts })));
      const last = task.status?.message ?? [...(task.history ?? [])].reverse().find((m) => m.role === Role.ROLE_AGENT);
      if (last?.parts.length) return answerFromParts([{ parts: last.parts }]);
      return `${agent} completed the task without an answer`;
    }
    case TaskState.TASK_STATE_FAILED:
      throw new ToolFailure(`${agent} failed${because || ': the agent gave no reason'}`);
    case TaskState.TASK_STATE_REJECTED:
      throw new ToolFailure(`${agent} declined the task${because}`);
    case TaskState.TASK_STATE_CANCELED:
      throw new ToolFailure(`${agent} cancelled the task${because}`);
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      throw new ToolFailure(`${agent} needs more input${because}. Call it again with a task that includes what it asks for.`);
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      throw new ToolFailure(`${agent} needs authentication${because}. Its credentials go in the catalog's a2a.headers.`);
    default:
      throw new ToolFailure(`${agent} stopped answering while its task was ${stateName(state)}${because}`);
  }
}
