import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Tool } from '../catalog/types.js';
import { createAjv, type AjvInstance } from '../catalog/create-ajv.js';

let ajv: AjvInstance | undefined;
const cache = new WeakMap<Tool, ValidateFunction>();

/**
 * Validates a call's arguments against the tool's parameters. Not strict: a schema `validate`
 * would warn about still validates what it can, since refusing a model's call over a schema
 * nit helps nobody.
 */
export function validateArguments(tool: Tool, args: unknown): { valid: true } | { valid: false; message: string } {
  let validate = cache.get(tool);
  if (!validate) {
    ajv ??= createAjv({ strict: false, allErrors: true, validateSchema: false, verbose: true });
    try {
      validate = ajv.compile(tool.parameters);
    } catch (error) {
      return { valid: false, message: `the tool's parameter schema does not compile (${error instanceof Error ? error.message : String(error)}); run toolman validate` };
    }
    cache.set(tool, validate);
  }
  if (validate(args)) return { valid: true };
  return { valid: false, message: describeErrors(validate.errors ?? [], tool) };
}

const where = (e: ErrorObject) => (e.instancePath ? `argument "${e.instancePath.slice(1).replace(/\//g, '.')}"` : 'the arguments');

/** Errors a model can act on: which field, what was expected, what it sent. */
export function describeErrors(errors: ErrorObject[], tool: Tool): string {
  const lines = new Set<string>();
  for (const e of errors) {
    const got = e.data === undefined ? '' : ` (got ${JSON.stringify(e.data)?.slice(0, 80)})`;
    switch (e.keyword) {
      case 'required':
        lines.add(`missing required argument "${[e.instancePath.slice(1).replace(/\//g, '.'), (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.')}"`);
        break;
      case 'additionalProperties': {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        const allowed = Object.keys((tool.parameters.properties as object | undefined) ?? {});
        lines.add(`unknown argument "${extra}"${e.instancePath ? ` in ${where(e)}` : ''}${allowed.length && !e.instancePath ? `; allowed: ${allowed.join(', ')}` : ''}`);
        break;
      }
      case 'enum':
        lines.add(`${where(e)} must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}${got}`);
        break;
      case 'type':
        lines.add(`${where(e)} must be ${(e.params as { type: string }).type}${got}`);
        break;
      default:
        lines.add(`${where(e)} ${e.message ?? 'is invalid'}${got}`);
    }
  }
  return `invalid arguments for ${tool.name}: ${[...lines].join('; ')}`;
}
