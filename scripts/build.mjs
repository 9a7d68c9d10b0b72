// Builds toolman: precompiled validators, then two bundles in dist/: the library (dist/index.js,
// an ES module) and the CLI (dist/cli/, CommonJS chunks that bin/toolman.js loads with V8's code
// cache: scripts/build-cli.mjs says why).
// Bundling matters for cold start: Node 20 loads ajv's and yaml's ~200 small modules one by one
// otherwise. Commands stay lazily loaded: esbuild splits each `import()` into its own chunk.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS, buildCli } from './build-cli.mjs';
import { writeValidators } from './build-validators.mjs';

// A path, not a URL's pathname: that is percent-encoded (a folder with a space, `/My Projects/`, did not build).
const root = fileURLToPath(new URL('../', import.meta.url));
await writeValidators();
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  ...BUNDLE_OPTIONS,
  absWorkingDir: root,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  sourcemap: 'linked',
});
await buildCli(root, `${root}dist/cli`);
console.log('built dist/');
