/**
 * The facade's reader of toolman test's results files, for `toolman test merge` (and anything
 * else that reads `--json` results): their precompiled validator alone. documents.ts has the rest
 * of toolman's documents (suites, schemas, YAML with source positions), whose code a merge of
 * results never needs.
 */
export { validateResultsDocument } from '../catalog/results-validator.js';
