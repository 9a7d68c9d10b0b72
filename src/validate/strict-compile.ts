import type { ErrorObject } from 'ajv';
import { createAjv, type AjvInstance } from '../catalog/create-ajv.js';
import type { JsonSchema } from '../catalog/types.js';
import { ajvDeferredRegExp } from '../shared/linear-regexp.js';

/** One schema to compile with ajv in strict mode, with the examples to validate against it. */
export interface StrictJob {
  id: number;
  schema: JsonSchema;
  examples: unknown[];
}

export type ExampleError = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params' | 'message'>;

export interface StrictResult {
  id: number;
  /** ajv's strict-mode complaints (and compile errors), as ajv words them. */
  complaints: string[];
  /** Examples that failed, with every error. */
  examples: { index: number; errors: ExampleError[] }[];
}

let log: string[] = [];
const logger = { log() {}, warn: (m: unknown) => void log.push(String(m)), error: (m: unknown) => void log.push(String(m)) };
let firstError: AjvInstance | undefined;
let allErrors: AjvInstance | undefined;
/**
 * Compiles an instance does before it is let go: ajv's scope keeps every schema it compiled and
 * every function it generated (with its source text, 8-16 KB) for the instance's life, and
 * `removeSchema` frees neither. A catalog with a new shape or examples in every tool (each such
 * tool is compiled whole) would hold them all to the end of the checks: about 60 MB at 50,000
 * tools. A new instance costs about 1 ms.
 */
const COMPILES_PER_INSTANCE = 200;
let compiles = 0;

/**
 * ajv in strict mode, logging its complaints instead of throwing at the first, so a schema with
 * three problems gets three findings. `required` names are checked by our own walk (with a
 * precise location), so strictRequired is off. Code optimisation and allErrors are off because
 * this compile exists for its complaints: about 40% faster, which matters at 10,000 tools. Only
 * when an example fails is the schema compiled again with allErrors, to report every problem.
 */
function strictAjv(all: boolean): AjvInstance {
  const options = { strict: 'log', strictRequired: false, allowUnionTypes: true, validateSchema: false, logger, code: { optimize: false, regExp: ajvDeferredRegExp } } as const;
  if (++compiles > COMPILES_PER_INSTANCE) releaseStrictCompilers();
  if (all) return (allErrors ??= createAjv({ ...options, allErrors: true }));
  return (firstError ??= createAjv({ ...options, allErrors: false }));
}

/**
 * Lets go of the compilers: ajv keeps what every compile added to its scope for the instance's
 * life (see COMPILES_PER_INSTANCE). The checks call this when they are done; the next compile
 * makes new ones.
 */
export function releaseStrictCompilers(): void {
  firstError = undefined;
  allErrors = undefined;
  compiles = 0;
}

export function runStrictJob(job: StrictJob): StrictResult {
  log = [];
  const result: StrictResult = { id: job.id, complaints: [], examples: [] };
  const ajv = strictAjv(false);
  let validate: ReturnType<AjvInstance['compile']> | undefined;
  try {
    validate = ajv.compile(job.schema);
  } catch (error) {
    log.push(error instanceof Error ? error.message : String(error));
  } finally {
    ajv.removeSchema(job.schema);
  }
  result.complaints = [...new Set(log)];
  if (!validate || job.examples.length === 0) return result;
  let thorough: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined;
  job.examples.forEach((example, index) => {
    if (validate(example)) return;
    if (!thorough) {
      const all = strictAjv(true);
      thorough = all.compile(job.schema);
      all.removeSchema(job.schema);
    }
    thorough(example);
    const errors = (thorough.errors ?? []).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }));
    result.examples.push({ index, errors });
  });
  return result;
}
