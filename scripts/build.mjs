// Builds toolman: precompiled validators, then one ESM bundle of the CLI in dist/.
// Bundling matters for cold start: Node 20 loads ajv's and yaml's ~200 small modules one by one
// otherwise. Commands stay lazily imported: esbuild splits each `import()` into its own chunk.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { writeValidators } from './build-validators.mjs';

const root = new URL('../', import.meta.url);
await writeValidators();
rmSync(new URL('dist/', root), { recursive: true, force: true });
await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: { main: 'src/cli/main.ts', index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  // A native binary, loaded only to compile TypeScript module handlers.
  external: ['esbuild', 'react-devtools-core', './cjs/*.development.js'], // and for the REPL: ink's devtools (loaded only with DEV=true), react's development builds (src/repl/run-repl.tsx loads react as production)
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __toolmanCreateRequire } from 'node:module'; const require = __toolmanCreateRequire(import.meta.url);" },
});
console.log('built dist/');
