import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { jsonErrorReason } from '../../shared/json-text.js';

/** Where a plugin's code is, or why it cannot be found. */
export type PluginLocation = { ok: true; file: string } | { ok: false; message: string; hint: string };

/**
 * Finds a plugin the way a module in the catalog's folder would import it: a relative (or
 * absolute) path is a file, or a folder whose package.json names its entry; a package name goes
 * through Node's own ESM resolution from the catalog file (node_modules up the folders, the
 * package's `exports` with the `import` condition). Nothing is loaded here.
 *
 * The ESM resolution is import-meta-resolve's (a port of Node's resolver): `import.meta.resolve`
 * takes no parent outside a flag, and `require.resolve` would pick a package's `require` entry,
 * not the one `import()` loads.
 */
export async function resolvePlugin(specifier: string, catalogFile: string): Promise<PluginLocation> {
  const catalogDir = dirname(catalogFile);
  if (isPath(specifier)) {
    const target = resolve(catalogDir, specifier);
    if (!existsSync(target)) return { ok: false, message: `the plugin ${specifier} does not exist (looked for ${target})`, hint: 'plugin paths are relative to the catalog file' };
    return statSync(target).isDirectory() ? folderEntry(specifier, target) : { ok: true, file: target };
  }
  const { resolve: resolveImport } = await import('import-meta-resolve');
  let url: string;
  try {
    url = resolveImport(specifier, pathToFileURL(catalogFile).href);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND') {
      return { ok: false, message: `cannot find the package ${JSON.stringify(packageName(specifier))} from ${catalogDir}`, hint: `install it where the catalog can import it (npm install ${packageName(specifier)}), or give a path: ./path/to/plugin#kind` };
    }
    return { ok: false, message: `cannot resolve the plugin ${JSON.stringify(specifier)} from ${catalogDir}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, hint: 'check the package\'s name and its package.json `exports`' };
  }
  if (!url.startsWith('file:')) return { ok: false, message: `${JSON.stringify(specifier)} is one of Node's built-in modules, not a plugin`, hint: 'name the plugin\'s package, or a path to it' };
  return { ok: true, file: fileURLToPath(url) };
}

function isPath(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../') || isAbsolute(specifier);
}

/** A folder: its package's own entry (`exports` through a self-reference, else `main`, else index.js). */
function folderEntry(specifier: string, folder: string): Promise<PluginLocation> | PluginLocation {
  const manifest = join(folder, 'package.json');
  let pkg: Record<string, unknown> = {};
  if (existsSync(manifest)) {
    try {
      pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      return { ok: false, message: `the plugin ${specifier}'s package.json cannot be read: ${jsonErrorReason(error)}`, hint: 'fix its package.json' };
    }
  }
  if (typeof pkg.name === 'string' && pkg.exports !== undefined) {
    // A package with `exports` resolves its own name from inside itself (a self-reference), as Node would.
    return import('import-meta-resolve').then(({ resolve: resolveImport }) => {
      try {
        return { ok: true as const, file: fileURLToPath(resolveImport(pkg.name as string, pathToFileURL(manifest).href)) };
      } catch (error) {
        return { ok: false as const, message: `the plugin ${specifier}'s package.json exports no entry for import: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, hint: 'give its package.json an `exports` entry for "."' };
      }
    });
  }
  try {
    return { ok: true, file: createRequire(manifest).resolve(folder) };
  } catch {
    return { ok: false, message: `the plugin folder ${specifier} has no entry file (no package.json "exports" or "main", no index.js)`, hint: 'give its package.json a "main" or "exports", or name the file: ./path/to/plugin.js#kind' };
  }
}

/** `@scope/pkg/sub` → `@scope/pkg`; `pkg/sub` → `pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
