import type { ValidateFunction } from 'ajv';
import resultsValidator from '../generated/results-schema-validator.js';

/**
 * The validator of `toolman test --json` results files, precompiled from
 * schema/results.schema.json at build time (scripts/build-validators.mjs). A module of its own so
 * that `toolman test merge`, which reads only results files, loads neither the suite's nor the
 * catalog's validators (nor ajv and the YAML parser): they were most of its start.
 */
export const validateResultsDocument = resultsValidator as unknown as ValidateFunction;
