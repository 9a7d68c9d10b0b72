#!/usr/bin/env node
// The one place toolman touches process exit: everything below returns an exit code.
// CommonJS (bin/package.json says so): an ES module as the entry starts Node's ES module loader,
// about 10 ms of CPU of every run, which the CLI (CommonJS chunks, see below) never needs.
'use strict';
const { existsSync, realpathSync } = require('node:fs');
const { join } = require('node:path');
const { setFlagsFromString } = require('node:v8');

// Node 22+'s own compile cache (module.enableCompileCache) is not turned on: with no folder given it
// keeps code in the shared temporary folder, checked only by a checksum of the source, so another
// local user could plant code there; toolman's own code cache (below) is authenticated.

try {
  process.cwd();
} catch {
  // Run from a folder deleted meanwhile: every relative path would fail, and Node's own error is a stack trace.
  process.stderr.write('toolman: error: the current folder no longer exists\n  hint: cd to a folder that exists and run it again\n');
  process.exit(2);
}
// A closed pipe (`toolman list | head`) is a normal way for a reader to stop, not an error. (Set up
// before the V8 flags, like the built-ins below: the streams' modules are Node's own.)
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.exit(2); // stdout is gone; there is nowhere left to report to
  });
}

const cliFolder = join(__dirname, '..', 'dist', 'cli');
if (!existsSync(join(cliFolder, 'main.cjs'))) {
  process.stderr.write('toolman: error: toolman is not built (dist/ is missing)\n  hint: run `npm install` (or `npm run build`) in the toolman folder\n');
  process.exit(2);
}
// The CLI is CommonJS chunks (scripts/build-cli.mjs) so that V8 can be given the code it compiled
// on an earlier run, kept in toolman's cache (src/cli/code-cache.ts), for them and for toolman's
// own CommonJS dependencies; the code cache is installed before anything else of the CLI loads.
// (Installed as a project's dependency, toolman's may sit in the project's node_modules instead:
// those are compiled by Node as usual.)
let main;
let processIO;
try {
  const folders = [cliFolder, join(__dirname, '..', 'node_modules')].filter((folder) => existsSync(folder)).map((folder) => realpathSync(folder));
  const { installCodeCache, v8FlagsFor, builtinsFor } = require(join(cliFolder, 'code-cache.cjs'));
  // The Node built-ins the run will load, loaded before the flags: Node's own compiled code for
  // them is refused under other flags (src/cli/preloaded-builtins.ts).
  for (const builtin of builtinsFor(process.argv.slice(2))) {
    if (builtin.startsWith('global:')) void globalThis[builtin.slice('global:'.length)];
    else require(builtin);
  }
  // Every V8 flag of the run (src/cli/v8-flags.ts) is set before the cache is installed: code V8
  // compiled under other flags is refused, so the entries are named by them and they never change later.
  const flags = v8FlagsFor(process.argv.slice(2));
  for (const flag of flags) setFlagsFromString(flag);
  installCodeCache(process.env, folders, flags);
  ({ main, processIO } = require(join(cliFolder, 'main.cjs')));
} catch (error) {
  // A build cut short (an upgrade interrupted: a chunk missing) is a clear error, not a stack trace.
  process.stderr.write(`toolman: error: toolman's build cannot be loaded (${error && error.code ? error.code : 'broken'}: ${String(error && error.message ? error.message : error).split('\n')[0]})\n  hint: run \`npm install\` (or \`npm run build\`) in the toolman folder\n`);
  process.exit(2);
}

main(process.argv.slice(2), processIO()).then((code) => {
  process.exitCode = code;
});
