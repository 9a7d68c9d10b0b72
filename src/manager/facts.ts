/**
 * The facade's stateless part: facts and pure helpers of the core that drivers show or check
 * against. Drivers (cli, repl, testing, serve) reach the core only through manager/ and
 * conversation/ (test/architecture.test.ts holds them to it); what needs no ToolManager is
 * offered here, each from the one module that owns it. Keep this file light: every command that
 * imports it loads what it re-exports.
 */
export { DIAGNOSTIC_CODES } from '../catalog/diagnostic-codes.js';
export { sortDiagnostics, summarize } from '../catalog/diagnostic.js';
export { escapeInvisible } from '../catalog/quoted-text.js';
export { toolSummary } from '../catalog/tool-summary.js';
export { META_TOOL_NAMES } from '../catalog/types.js';
export { NOT_RUN_KINDS, REFUSED_KINDS } from '../execute/types.js';
export { describeToolsChange } from '../mcp/tools-change.js';
export { CHAT_PROVIDERS } from '../providers/model-clients.js';
export { DEFAULT_MODELS } from '../providers/default-models.js';
export { PROVIDERS, PROVIDER_LABELS } from '../providers/types.js';
export { promptContributions } from '../providers/prompt-contributions.js';
export { requestFragment } from '../providers/format-tools.js';
export { defaultProfileName, profileNames, resolveProfile } from '../select/resolve-profile.js';
export { structuredContentOf } from '../execute/structured-result.js';
