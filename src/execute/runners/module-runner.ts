import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolRunner } from '../runner.js';

type ToolFunction = (args: Record<string, unknown>, context: ModuleContext) => unknown;

/** What a module handler's function gets as its second argument. */
export interface ModuleContext {
  cwd: string;
  signal: AbortSignal;
  progress(message: string): void;
  scratch: Map<string, unknown>;
  tool: string;
}

const loaded = new Map<string, Promise<Record<string, unknown>>>();

/** Loads a JavaScript module, or a TypeScript one compiled on the fly with esbuild (loaded only then). */
async function loadModule(file: string): Promise<Record<string, unknown>> {
  let module = loaded.get(file);
  if (!module) {
    module = (async () => {
      if (!existsSync(file)) throw new Error(`module file ${file} does not exist`);
      if (['.ts', '.mts', '.cts'].includes(extname(file))) {
        const { build } = await import('esbuild');
        const result = await build({ entryPoints: [file], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent' });
        const code = result.outputFiles[0]!.text;
        return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Record<string, unknown>;
      }
      return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    })();
    loaded.set(file, module);
  }
  return module;
}

/** Calls a module's exported function `(args, context)`; resolved relative to the catalog. */
export const moduleRunner: ToolRunner<'module'> = {
  kind: 'module',
  async run({ file, exportName }, args, context) {
    const module = await loadModule(file);
    const fn = (exportName === 'default' ? (module.default ?? module) : module[exportName]) as ToolFunction | undefined;
    if (typeof fn !== 'function') throw new Error(`${file} has no exported function ${JSON.stringify(exportName)}`);
    return fn(args, { cwd: context.cwd, signal: context.signal, progress: (message) => context.progress(message), scratch: context.scratch, tool: context.tool.name });
  },
};
