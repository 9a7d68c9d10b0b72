import type { Catalog } from '../catalog/types.js';
import { selectTools, type Selection } from '../select/select-tools.js';

const selections = new WeakMap<Catalog, Map<string, Selection | Error>>();

/**
 * What a profile offers (selectTools with the profile alone), computed once per catalog value for
 * all of validate's checks: the confusable-tools, provider, client and agent checks each read
 * every profile's selection, and a catalog value is never changed in place (a new one replaces
 * it), so one selection serves them all. Callers read the selection; they never change it. Throws
 * what selectTools throws (an unknown `extends`, a cycle), each time it is asked.
 */
export function profileSelection(catalog: Catalog, profile?: string): Selection {
  let byProfile = selections.get(catalog);
  if (!byProfile) selections.set(catalog, (byProfile = new Map()));
  const key = profile ?? '\u0000default';
  let found = byProfile.get(key);
  if (!found) {
    try {
      found = selectTools(catalog, profile === undefined ? {} : { profile });
    } catch (error) {
      found = error instanceof Error ? error : new Error(String(error));
    }
    byProfile.set(key, found);
  }
  if (found instanceof Error) throw found;
  return found;
}
