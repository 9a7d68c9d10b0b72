/**
 * toolman's core as a library: the same pieces the CLI drives. Everything here is UI-free and
 * returns values (or typed errors) instead of printing.
 */
export { loadCatalog, type LoadedCatalog, type LoadOptions } from './catalog/load-catalog.js';
export { validateCatalog, checkLoadedCatalog } from './catalog/validate-catalog.js';
export type { Diagnostic } from './catalog/diagnostic.js';
export { DIAGNOSTIC_CODES } from './catalog/diagnostic-codes.js';
export type { Catalog, Tool } from './catalog/types.js';
export { ToolmanError, ErrorCode } from './errors.js';
export { selectTools, type Selection, type SelectionRequest } from './select/select-tools.js';
export { ToolSearch } from './search/tool-search.js';
export { evaluateSearch } from './search/evaluate-search.js';
export { importTools } from './import/import-tools.js';
export { ToolManager } from './manager/tool-manager.js';
export { ToolSession } from './manager/tool-session.js';
export { budgetReport } from './manager/budget-report.js';
export { formatTools, formatSession } from './providers/format-tools.js';
export { countRequest } from './tokens/count-request.js';
export { countDefinitions } from './tokens/count-payload.js';
export { Executor, type ExecutorOptions } from './execute/executor.js';
export type { ToolCall, ToolResponse, TurnResult, CallEvent, ApprovalRequest } from './execute/types.js';
