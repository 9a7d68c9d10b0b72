import type { Catalog } from '../catalog/types.js';

/** How a comparison loads tools: every one up front (eager), or every one through tool search (deferred). */
export type Loading = 'eager' | 'deferred';

/**
 * The catalog with every tool eager or every tool deferred (`test --compare eager deferred`), as
 * a new value: eager also clears the profiles' `defer` lists and `defer: auto`. The catalog it
 * was made from is unchanged.
 */
export function withLoading(catalog: Catalog, loading: Loading): Catalog {
  const tools = catalog.tools.map((tool) => ({ ...tool, deferLoading: loading === 'deferred' }));
  const profiles = loading === 'eager' ? new Map([...catalog.profiles].map(([name, profile]) => [name, { ...profile, defer: [], deferAuto: false }])) : catalog.profiles;
  return { ...catalog, tools, profiles };
}
