/**
 * The facade's catalog verdicts beyond the findings `ToolManager.validate()` gives: each tool's
 * description-quality score, and the findings of MCP clients' limits (`validate --client`), with
 * the clients toolman knows and the ones it could not find documented figures for.
 */
export { clientDiagnostics } from '../validate/validate-catalog.js';
export { CLIENTS, UNDOCUMENTED_CLIENTS } from '../validate/client-facts.js';
export { descriptionQuality } from '../validate/description-quality.js';
export { writeFixes } from '../validate/write-fixes.js';
