/**
 * The facade's readers of toolman's own documents, for drivers: YAML with source positions (a
 * suite), JSON Schema checks (suites, matchers), recordings, where transcripts go, the catalog
 * format's schema, rule settings from the command line.
 */
export { catalogSchema } from '../catalog/catalog-schema.js';
export { createAjv, type AjvInstance } from '../catalog/create-ajv.js';
export { DRAFT_2020_12, validateMetaSchema, validateResultsDocument, validateSuiteDocument } from '../catalog/document-validators.js';
export { SourceFile } from '../catalog/source-file.js';
export { readRecording } from '../loop/recording.js';
export { defaultTranscriptPath } from '../loop/transcript.js';
export { describeAge } from '../mcp/tool-list-cache.js';
export { parseRuleOptions } from '../validate/rule-settings.js';
