import { defaultProfileName, profileNames, resolveProfile } from '../../manager/facts.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { createTable } from '../output/table.js';
import { withManager } from '../open-manager.js';
import { clip } from '../output/clip.js';
import { jsonDocument } from '../output/json-document.js';

export interface ProfilesOptions {
  catalog?: string[];
  json?: boolean;
}

/** `toolman profiles`: each profile with what it offers (active, deferred, removed). */
export async function profilesCommand(options: ProfilesOptions, io: CliIO): Promise<ExitCode> {
  return withManager(io, options.catalog, async (manager) => {
    const catalog = manager.catalog;
    const fallback = defaultProfileName(catalog);
    const rows = profileNames(catalog).map((name) => {
      const profile = resolveProfile(catalog, name);
      const selection = manager.select({ profile: name });
      return {
        name,
        description: profile.description ?? null,
        extends: profile.chain.slice(1),
        builtin: profile.builtin,
        default: name === fallback,
        active: selection.active.length,
        deferred: selection.deferred.length,
        removed: selection.decisions.length - selection.active.length - selection.deferred.length,
        forced: selection.forced.map((t) => t.name),
      };
  });
  if (options.json) {
    io.stdout.write(jsonDocument({ catalog: catalog.name, profiles: rows }) + '\n');
    return EXIT.OK;
  }
  const table = await createTable(['profile', 'active', 'deferred', 'removed', 'extends', 'description'], io);
  for (const row of rows) {
    table.push([`${row.name}${row.default ? ' (default)' : ''}${row.builtin ? ' *' : ''}`, row.active, row.deferred, row.removed, row.extends.join(', '), clip(row.description ?? '', 60)]);
  }
  io.stdout.write(`${table.toString()}\n${rows.some((row) => row.builtin) ? '* built in\n' : ''}`);
  return EXIT.OK;
  });
}
