import type { Diagnostic } from '../catalog/diagnostic.js';
import type { DiagnosticCode } from '../catalog/diagnostic-codes.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import type { RuleLevel } from '../validate/rule-settings.js';

/**
 * The facade's catalog verdicts beyond the findings `ToolManager.validate()` gives (and the
 * description-quality grades `ToolManager.qualityGrades()` gives): the findings of MCP clients'
 * limits (`validate --client`), with the clients toolman knows and the ones it could not find
 * documented figures for. Light: the checks load only when a client is checked.
 */
export { CLIENTS, UNDOCUMENTED_CLIENTS } from '../validate/client-facts.js';
export { parseRuleOptions } from '../validate/rule-settings.js';
export { writeFixes } from '../validate/write-fixes.js';

/** Findings for MCP clients named on the command line (`validate --client`), with the catalog's rule settings and `rules` applied. */
export async function clientDiagnostics(loaded: LoadedCatalog, clients: readonly string[], rules?: ReadonlyMap<DiagnosticCode, RuleLevel>): Promise<Diagnostic[]> {
  if (clients.length === 0) return [];
  return (await import('../validate/validate-catalog.js')).clientDiagnostics(loaded, clients, rules);
}
