#!/usr/bin/env node
// The one place toolman touches process exit: everything below returns an exit code.
import { existsSync, realpathSync } from 'node:fs';
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node 22+ caches compiled code between runs for what toolman's own code cache does not cover
// (the REPL's ES module chunk, dependencies loaded from node_modules); on Node 20 this is a no-op.
module.enableCompileCache?.();
// The only WebAssembly toolman runs is the HTTP parser of Node's own fetch (undici's llhttp). V8
// optimises its hot parse function in a background thread, and a process that made one request
// waited at exit for that compile to finish: about 45 ms of every one-shot `chat` or live `test`
// (Node 20.20, 2 cores; docs/architecture.md). Its baseline code parses a reply fast enough.
setFlagsFromString('--liftoff-only');
const cliFolder = new URL('../dist/cli/', import.meta.url);
if (!existsSync(new URL('main.cjs', cliFolder))) {
  process.stderr.write('toolman: error: toolman is not built (dist/ is missing)\n  hint: run `npm install` (or `npm run build`) in the toolman folder\n');
  process.exit(2);
}
// The CLI is CommonJS chunks (scripts/build-cli.mjs) so that V8 can be given the code it compiled
// on an earlier run, kept in toolman's cache (src/cli/code-cache.ts); the code cache is installed
// before anything else of the CLI loads.
const require = module.createRequire(import.meta.url);
const { installCodeCache } = require('../dist/cli/code-cache.cjs');
installCodeCache(process.env, realpathSync(cliFolder));
const cli = require('../dist/cli/main.cjs');
const { main, processIO } = cli;

// A closed pipe (`toolman list | head`) is a normal way for a reader to stop, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.exit(2); // stdout is gone; there is nowhere left to report to
  });
}

process.exitCode = await main(process.argv.slice(2), processIO());
