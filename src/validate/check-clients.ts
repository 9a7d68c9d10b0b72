import type { Diagnostic } from '../catalog/diagnostic.js';
import type { LoadedCatalog } from '../catalog/load-catalog.js';
import { Reporter } from '../catalog/reporter.js';
import { profileNames } from '../select/resolve-profile.js';
import { selectTools } from '../select/select-tools.js';
import { clientFacts } from './client-facts.js';
import { reporterFor } from './check-tools.js';

/**
 * Client limits (TM1301, TM1302): for each MCP client the catalog is meant for (`lint.clients:`,
 * or `validate --client`), what each profile offers up front against the client's documented
 * tool cap, and the tools the client would change. Findings go to `sink` (the loaded catalog's
 * own findings by default), located as every other finding.
 */
export function checkClients(loaded: LoadedCatalog, clients: readonly string[], sink: Diagnostic[] = loaded.diagnostics): void {
  const reporters = sink === loaded.diagnostics ? loaded.reporters : new Map([...loaded.sources].map(([path, file]) => [path, new Reporter(file, sink)]));
  const rootFile = loaded.catalog.files[0];
  for (const name of clients) {
    const facts = clientFacts(name);
    if (!facts) continue;
    if (facts.maxTools !== undefined) {
      for (const profileName of profileNames(loaded.catalog)) {
        let selection;
        try {
          selection = selectTools(loaded.catalog, { profile: profileName });
        } catch {
          continue; // unknown extends and cycles are the profile checks' findings
        }
        // What `toolman serve` offers a client: the active tools, and tool_search when anything is deferred.
        const offered = selection.active.length + (selection.deferred.length ? 1 : 0);
        if (offered <= facts.maxTools) continue;
        const profile = loaded.catalog.profiles.get(profileName);
        const reporter = profile ? reporters.get(profile.file) : rootFile ? reporters.get(rootFile) : undefined;
        reporter?.report('TM1301', profile ? profile.pointer : '/tools', `profile ${profileName} offers ${offered} tools up front; ${facts.label} takes at most ${facts.maxTools}`, {
          part: 'key',
          subject: '',
          hint: `defer tools (defer_loading, a profile's defer, or defer: auto) so tool_search finds them on demand, or serve a smaller profile to ${facts.label}. Source: ${facts.maxToolsSource}`,
        });
      }
    }
    if (facts.emptyDescription) {
      for (const tool of loaded.catalog.tools) {
        if (tool.source.kind === 'meta' || (tool.description ?? '').trim() !== '') continue;
        const reporter = reporterFor(loaded, tool, reporters);
        reporter?.report('TM1302', tool.source.pointer, `${facts.label} offers a tool without a description as "<empty>"`, {
          part: 'key',
          hint: `describe the tool. Source: ${facts.emptyDescription}`,
        });
      }
    }
  }
}
