import { pointerOf, segmentsOf } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { BUILTIN_PROFILE_DEFINITIONS } from '../select/resolve-profile.js';
import { profileSelection } from './profile-selection.js';
import { closest } from '../shared/did-you-mean.js';

/**
 * Checks the agents' own settings that only show at call time otherwise: a local agent's profile
 * must exist (TM0901); a profile that offers the agent to itself is allowed but each such call is
 * refused (TM0903). (TM0902, a provider the loop did not talk to, is retired: the loop talks to
 * every provider the schema allows, and the schema names any other, TM0103.)
 */
export function checkAgents(loaded: LoadedCatalog): void {
  const { catalog } = loaded;
  const profiles = [...new Set([...catalog.profiles.keys(), ...Object.keys(BUILTIN_PROFILE_DEFINITIONS)])];
  for (const agent of catalog.agents.values()) {
    const local = agent.local;
    const reporter = loaded.reporters.get(agent.file);
    // Fields of the wrong type are the catalog schema's findings (TM0102); only strings are checked here.
    if (!local || !reporter) continue;
    const profile = typeof local.profile === 'string' ? local.profile : undefined;
    const at = (...path: string[]) => pointerOf([...segmentsOf(agent.pointer), 'local', ...path]);
    if (profile === undefined) continue;
    if (!profiles.includes(profile)) {
      const suggestion = closest(profile, profiles);
      reporter.report('TM0901', at('profile'), `"${profile}" is not a profile` + (suggestion ? `; did you mean "${suggestion}"?` : ''), { hint: `profiles: ${profiles.join(', ')}` });
      continue;
    }
    const selection = profileSelection(catalog, profile);
    if ([...selection.active, ...selection.deferred].some((tool) => tool.handler?.kind === 'agent' && tool.handler.agent === agent.name)) {
      reporter.report('TM0903', at('profile'), `the profile "${profile}" offers the agent to itself; toolman refuses an agent's call to itself, so the model would only waste a round`, {
        hint: `exclude it in the profile (exclude: [${agent.name}])`,
      });
    }
  }
}
