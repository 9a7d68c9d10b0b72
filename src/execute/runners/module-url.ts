import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/**
 * Where a module handler's worker imports it from: a JavaScript file itself, or a TypeScript file
 * compiled here by esbuild (loaded only then) into a `data:` URL. Compiling in toolman rather than
 * in the worker keeps esbuild resolvable from toolman's own install, whatever the catalog's folder.
 */
export async function moduleUrl(file: string): Promise<string> {
  if (!existsSync(file)) throw new Error(`module file ${file} does not exist`);
  if (!TYPESCRIPT.has(extname(file))) return pathToFileURL(file).href;
  const { build } = await import('esbuild');
  const result = await build({ entryPoints: [file], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent' });
  return `data:text/javascript;base64,${Buffer.from(result.outputFiles[0]!.text).toString('base64')}`;
}
