import { canonicalJson } from '../shared/canonical-json.js';
import type { CallRecord } from './types.js';

/**
 * When two calls are "the same call": the same catalog tool with the same arguments in any key
 * order. One key for the executor's de-duplication within a turn and the loop's repeat guard
 * across rounds, so an alias, a provider rename or invoke_tool never makes a repeat look new.
 */
export function callKey(record: Pick<CallRecord, 'tool' | 'arguments'>): string {
  return `${record.tool}\u0000${canonicalJson(record.arguments)}`;
}
