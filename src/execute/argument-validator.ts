import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema, Tool } from '../catalog/types.js';
import type { AjvInstance } from '../catalog/create-ajv.js';

let ajv: AjvInstance | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads ajv (about 200 KB of code, 10-15 ms of a start) the first time something is checked: a
 * chat turn the model answers without calls, or `budget`, never loads it. The executor awaits
 * this before a turn's calls, the loop before its evaluation checks; the checks below are then
 * synchronous.
 */
export function loadValidator(): Promise<void> {
  loading ??= import('../catalog/create-ajv.js').then(({ createAjv }) => {
    ajv = createAjv({ strict: false, allErrors: true, validateSchema: false, verbose: true });
  });
  return loading;
}
/** Whether ajv is loaded: the checks can run now. Awaiting `loadValidator()` once it is still costs a turn of the microtask queue. */
export function validatorLoaded(): boolean {
  return ajv !== undefined;
}

const argumentValidators = new WeakMap<Tool, ValidateFunction>();
const outputValidators = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * Not strict: a schema `validate` would warn about still validates what it can, since refusing
 * a model's call (or a tool's result) over a schema nit helps nobody. Patterns run on RE2, and
 * no `$ref` outside the schema is ever fetched (ajv has no loader), as MCP asks of clients
 * (2026-07-28, basic/index.mdx, "JSON Schema Usage").
 */
function compile(schema: JsonSchema): ValidateFunction {
  if (!ajv) throw new Error('the validator is not loaded yet (loadValidator)');
  return ajv.compile(schema);
}

/** Validates a call's arguments against the tool's parameters. */
export function validateArguments(tool: Tool, args: unknown): { valid: true } | { valid: false; message: string } {
  let validate = argumentValidators.get(tool);
  if (!validate) {
    try {
      validate = compile(tool.parameters);
    } catch (error) {
      return { valid: false, message: `the tool's parameter schema does not compile (${error instanceof Error ? error.message : String(error)}); run toolman validate` };
    }
    argumentValidators.set(tool, validate);
  }
  if (validate(args)) return { valid: true };
  return { valid: false, message: describeErrors(validate.errors ?? [], tool) };
}

/**
 * Validates a tool's result against its output schema (`tool.outputSchema`): the whole result,
 * before any truncation. The message is for the model: it says the tool broke its own contract
 * (not the call), and where.
 */
export function validateOutput(tool: Tool & { outputSchema: JsonSchema }, value: unknown): { valid: true } | { valid: false; message: string } {
  let validate = outputValidators.get(tool.outputSchema);
  if (!validate) {
    try {
      validate = compile(tool.outputSchema);
    } catch (error) {
      return { valid: false, message: `${tool.name}'s output schema does not compile (${error instanceof Error ? error.message : String(error)}), so its result cannot be checked and was withheld; run toolman validate` };
    }
    outputValidators.set(tool.outputSchema, validate);
  }
  if (validate(value)) return { valid: true };
  const text = typeof value === 'string' && tool.outputSchema.type !== 'string' ? ' (it returned text; a tool with an output schema returns the structured value itself, as an MCP server does in structuredContent)' : '';
  return {
    valid: false,
    message: `${tool.name} returned a result that does not match its output schema, so the result was withheld: ${describeProblems(validate.errors ?? [], tool, 'result')}${text}. The tool failed, not your call; do not rely on its output.`,
  };
}

/**
 * Checks any value against a schema (an evaluation's `schema:`): the same compile as results
 * get, the problems in the words a result's get.
 */
export function validateValue(schema: JsonSchema, value: unknown, label: string): { valid: true } | { valid: false; message: string } {
  let validate = outputValidators.get(schema);
  if (!validate) {
    try {
      validate = compile(schema);
    } catch (error) {
      return { valid: false, message: `the schema does not compile (${error instanceof Error ? error.message : String(error)}); run toolman validate` };
    }
    outputValidators.set(schema, validate);
  }
  if (validate(value)) return { valid: true };
  return { valid: false, message: describeProblems(validate.errors ?? [], { name: label, parameters: {} } as unknown as Tool, 'result') };
}

/** `result.items[0].id` for the instance path `/items/0/id` (JSON Pointer escapes undone). */
const resultPath = (pointer: string) =>
  'result' + pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');

/** Where an error is: `argument "a.b"` for arguments, `result.a[0].b` for a result. */
const where = (e: ErrorObject, subject: 'arguments' | 'result') => {
  if (subject === 'result') return e.instancePath ? resultPath(e.instancePath) : 'the result';
  const path = e.instancePath.slice(1).replace(/\//g, '.');
  return path ? `argument "${path}"` : 'the arguments';
};

/** Errors a model can act on: which field, what was expected, what it sent. */
export function describeErrors(errors: ErrorObject[], tool: Tool): string {
  return `invalid arguments for ${tool.name}: ${describeProblems(errors, tool, 'arguments')}`;
}

function describeProblems(errors: ErrorObject[], tool: Tool, subject: 'arguments' | 'result'): string {
  const lines = new Set<string>();
  const noun = subject === 'arguments' ? 'argument' : 'field';
  for (const e of errors) {
    const got = e.data === undefined ? '' : ` (got ${JSON.stringify(e.data)?.slice(0, 80)})`;
    switch (e.keyword) {
      case 'required': {
        const parent = e.instancePath.slice(1).replace(/\//g, '.');
        const missing = (e.params as { missingProperty: string }).missingProperty;
        lines.add(`missing required ${noun} "${subject === 'result' ? `${resultPath(e.instancePath)}.${missing}` : [parent, missing].filter(Boolean).join('.')}"`);
        break;
      }
      case 'additionalProperties': {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        const allowed = subject === 'arguments' ? Object.keys((tool.parameters.properties as object | undefined) ?? {}) : [];
        lines.add(`unknown ${noun} "${extra}"${e.instancePath || subject === 'result' ? ` in ${where(e, subject)}` : ''}${allowed.length && !e.instancePath ? `; allowed: ${allowed.join(', ')}` : ''}`);
        break;
      }
      case 'enum':
        lines.add(`${where(e, subject)} must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}${got}`);
        break;
      case 'type':
        lines.add(`${where(e, subject)} must be ${(e.params as { type: string }).type}${got}`);
        break;
      default:
        lines.add(`${where(e, subject)} ${e.message ?? 'is invalid'}${got}`);
    }
  }
  return [...lines].join('; ');
}
