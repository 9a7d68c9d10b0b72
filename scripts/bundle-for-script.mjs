// Bundles some of toolman's TypeScript sources into one module a build script can import, so
// scripts run exactly the code toolman runs (no second copy of it). Written under
// node_modules/.cache, which every install has and nothing commits.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

export async function bundleForScript(name, exportLines) {
  const dir = join(root, 'node_modules', '.cache', 'toolman-build');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: exportLines.join('\n'), resolveDir: root, loader: 'ts' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    banner: { js: "import { createRequire as __toolmanRequire } from 'node:module'; const require = __toolmanRequire(import.meta.url);" },
  });
  return outfile;
}
