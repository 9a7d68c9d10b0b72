/**
 * toolman's core as a library: the same pieces the CLI drives. Everything here is UI-free and
 * returns values (or typed errors) instead of printing. `ToolManager` is the facade; the rest is
 * exported for embedding and tests.
 */
export { ToolManager, type OpenOptions, type SessionRequest } from './manager/tool-manager.js';
export { loadCatalog, type LoadedCatalog, type LoadOptions } from './catalog/load-catalog.js';
export { validateCatalog, checkLoadedCatalog } from './validate/validate-catalog.js';
export type { Diagnostic } from './catalog/diagnostic.js';
export { DIAGNOSTIC_CODES } from './catalog/diagnostic-codes.js';
export type { Catalog, Tool, Handler } from './catalog/types.js';
export { ToolmanError, ErrorCode } from './shared/errors.js';
export { selectTools, type Selection, type SelectionRequest } from './select/select-tools.js';
export { toolChoiceFor, type ToolChoice } from './select/tool-choice.js';
export { ToolSearch } from './search/tool-search.js';
export { evaluateSearch } from './search/evaluate-search.js';
export { importTools } from './import/import-tools.js';
export { ToolSession, type SessionOptions, type SessionServices } from './session/tool-session.js';
export { budgetReport } from './budget/budget-report.js';
export { formatTools } from './providers/format-tools.js';
export { countRequest } from './tokens/count-request.js';
export { countDefinitions } from './tokens/count-payload.js';
export { Executor, type ExecutorOptions, type ToolScope, type TurnOptions } from './execute/executor.js';
export { RunnerRegistry, ToolFailure, type ToolRunner, type RunContext } from './execute/runner.js';
export { defaultRunners } from './execute/runners/default-runners.js';
/** What a handler plugin implements (docs/catalog-format.md#handler-plugins). */
export { PLUGIN_API_VERSION, type ToolmanPlugin, type PluginKind, type PluginRunner, type PluginCreateContext, type PluginCallContext } from './execute/plugin-api.js';
export type { YieldStream } from './execute/runner.js';
export type { JobReport, JobUpdate, JobYield } from './execute/stateful-job.js';
export type { ToolCall, ToolResponse, TurnResult, CallEvent, CallStatus, ApprovalRequest, ApprovalDecision, Approver } from './execute/types.js';
