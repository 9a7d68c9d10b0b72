/**
 * The facade's import pipeline, for `toolman import` and `toolman mcp`: tool definitions in other
 * formats (or a running MCP server's list) into catalog text, with notes of what changed.
 */
export { IMPORT_FORMATS, type ImportFormat } from '../import/detect-format.js';
export { importTools } from '../import/import-tools.js';
export { catalogText } from '../import/write-catalog.js';
export { adHocCatalogText, checkAdHocServer, listAdHocTools, type AdHocServer } from '../mcp/ad-hoc-server.js';
