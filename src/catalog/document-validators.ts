import type { ValidateFunction } from 'ajv';
import resultsValidator from '../generated/results-schema-validator.js';
import suiteValidator from '../generated/suite-schema-validator.js';

/**
 * The validators of toolman test's documents, precompiled from schema/suite.schema.json and
 * schema/results.schema.json at build time (scripts/build-validators.mjs): compiling the suite
 * schema took about 50 ms of every `toolman test` start, and each shard of a run starts once.
 */
export const validateSuiteDocument = suiteValidator as unknown as ValidateFunction;
export const validateResultsDocument = resultsValidator as unknown as ValidateFunction;
