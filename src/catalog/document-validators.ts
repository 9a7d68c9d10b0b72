import type { ValidateFunction } from 'ajv';
import metaValidator from '../generated/meta-schema-validator.js';
import suiteValidator from '../generated/suite-schema-validator.js';

/**
 * The validators of toolman test's suites, precompiled from schema/suite.schema.json at build
 * time (scripts/build-validators.mjs): compiling the suite schema took about 50 ms of every
 * `toolman test` start, and each shard of a run starts once. The results files' validator is in
 * results-validator.ts, apart: `toolman test merge` reads only those.
 */
export const validateSuiteDocument = suiteValidator as unknown as ValidateFunction;

/**
 * The draft 2020-12 meta-schema's validator, precompiled too: an ajv instance that checks a schema
 * before compiling it first compiles the meta-schema itself (about 37 ms), which `toolman test`'s
 * `schema:` matchers paid on every run.
 */
export const validateMetaSchema = metaValidator as unknown as ValidateFunction;

/** The meta-schema the precompiled validator checks against (the one a schema without `$schema` gets). */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
