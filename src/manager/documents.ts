/**
 * The facade's readers of toolman's own documents, for drivers: YAML with source positions (a
 * suite), JSON Schema checks (suites, results, matchers), the catalog format's schema.
 * Recordings and transcripts are in recordings.ts, rule settings in lint.ts, results files in
 * results-documents.ts: commands that need only those do not load these validators.
 */
export { catalogSchema } from '../catalog/catalog-schema.js';
export { createAjv, type AjvInstance } from '../catalog/create-ajv.js';
export { DRAFT_2020_12, validateMetaSchema, validateSuiteDocument } from '../catalog/document-validators.js';
export { validateResultsDocument } from './results-documents.js';
export { SourceFile } from '../catalog/source-file.js';
