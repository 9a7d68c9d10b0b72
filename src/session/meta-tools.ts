import { META_TOOL_NAMES, TOOL_DEFAULTS, type JsonSchema, type Tool } from '../catalog/types.js';
import { STATEFUL_LIMITS } from '../execute/stateful-job.js';

export { META_TOOL_NAMES };
export type MetaToolName = (typeof META_TOOL_NAMES)[number];

export const MAX_SEARCH_RESULTS = 20;

function metaTool(name: MetaToolName, description: string, parameters: JsonSchema): Tool {
  return {
    name,
    description,
    aliases: [],
    tags: ['search'],
    keywords: [],
    profiles: [],
    effect: 'read',
    confirm: 'never',
    enabled: true,
    exclusive: false,
    takesControl: false,
    deferLoading: false,
    alwaysLoad: true,
    concurrency: 'safe',
    mode: 'direct',
    dedupe: true,
    timeoutMs: TOOL_DEFAULTS.timeout_ms,
    maxResultTokens: TOOL_DEFAULTS.max_result_tokens,
    truncation: 'smart',
    prompts: {},
    parameters,
    examples: [],
    handler: { kind: 'meta' },
    source: { kind: 'meta' },
  };
}

export function toolSearchTool(deferredCount: number): Tool {
  return metaTool(
    'tool_search',
    `Search ${deferredCount} more tools that are not loaded yet, by what you need to do. The best matches are returned with their parameters and become available to call directly from the next step on. Search again with other words if nothing fits.`,
    {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words (e.g. "convert currency", "delete calendar event")' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 5, description: 'How many tools to return' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  );
}

export function discoverTools(categories: string[], tags: string[]): Tool[] {
  const category: JsonSchema = { type: 'string', description: 'Only tools in this category' };
  if (categories.length) category.enum = categories;
  const tag: JsonSchema = { type: 'string', description: 'Only tools with this tag (action)' };
  if (tags.length) tag.enum = tags;
  return [
    metaTool('discover_tools', 'List tools that are not loaded yet, filtered by category, tag or keyword. Returns names and one-line summaries; use get_tool_schema for a tool\'s parameters and invoke_tool to run it.', {
      type: 'object',
      properties: {
        category,
        tag,
        keyword: { type: 'string', description: 'Words describing what the tool should do' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many tools to list' },
      },
      additionalProperties: false,
    }),
    metaTool('get_tool_schema', 'Get the full definition of one tool found with discover_tools: description and the JSON Schema of its arguments.', {
      type: 'object',
      properties: { name: { type: 'string', description: 'The tool name, as listed by discover_tools' } },
      required: ['name'],
      additionalProperties: false,
    }),
    metaTool('invoke_tool', 'Run a tool found with discover_tools, with arguments that follow its schema (see get_tool_schema). The arguments are checked and confirmation rules apply as for any tool.', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The tool name' },
        arguments: { type: 'object', description: 'The arguments, as an object matching the tool\'s schema' },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    }),
  ];
}

/** Collect the results of `mode: background` tools, which answer with a job id at once. */
export function jobTools(): Tool[] {
  const jobId = { job_id: { type: 'string', description: 'The job id a background tool answered with' } };
  return [
    metaTool('job_status', 'Check on a background job: running, done or failed, and for how long it has run.', { type: 'object', properties: jobId, required: ['job_id'], additionalProperties: false }),
    metaTool('job_result', 'Get the result of a finished background job (or its status if it is still running).', { type: 'object', properties: jobId, required: ['job_id'], additionalProperties: false }),
  ];
}

/**
 * Read and stop the jobs of `mode: stateful` tools, which answer with their first yield and a job
 * id. `maxResultTokens`: the largest result limit of those tools (each read keeps to its own tool's).
 * job_next is not de-duplicated or counted as a loop: the same call reads something new each time.
 */
export function statefulJobTools(maxResultTokens: number): Tool[] {
  const jobId = { job_id: { type: 'string', description: 'The job id the tool answered with' } };
  const next = metaTool(
    'job_next',
    'Read what a running job (a tool that answered with a job_id and its first yield) yielded since you last read it, in order, with its result or error once it has ended.',
    {
      type: 'object',
      properties: {
        ...jobId,
        wait_ms: { type: 'integer', minimum: 0, maximum: STATEFUL_LIMITS.maxWaitMs, default: STATEFUL_LIMITS.defaultWaitMs, description: 'How long to wait at most, in milliseconds' },
        until: { type: 'string', enum: ['next', 'end'], default: 'next', description: 'next: answer as soon as something new came; end: wait for the job to end, then answer with everything new' },
        send: { type: 'string', description: 'Optional: text for the tool, which its next step receives (only tools that say they take input use it)' },
      },
      required: ['job_id'],
      additionalProperties: false,
    },
  );
  const stop = metaTool('job_stop', 'Stop a running job; answers with what it yielded that you had not read yet.', { type: 'object', properties: jobId, required: ['job_id'], additionalProperties: false });
  for (const tool of [next, stop]) tool.maxResultTokens = Math.max(tool.maxResultTokens, maxResultTokens + 100);
  next.dedupe = false;
  return [next, stop];
}

/**
 * The job meta-tools a session offers beside `tools` (whatever else it offers): job_status and
 * job_result for background tools, job_next and job_stop for stateful ones. Sent eagerly or with
 * deferral alike, so `budget` counts them in both.
 */
export function jobToolsFor(tools: readonly Tool[]): Tool[] {
  const background = tools.some((t) => t.mode === 'background') ? jobTools() : [];
  const stateful = tools.filter((t) => t.mode === 'stateful');
  return [...background, ...(stateful.length ? statefulJobTools(Math.max(...stateful.map((t) => t.maxResultTokens))) : [])];
}
