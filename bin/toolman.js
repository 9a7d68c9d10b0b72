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

// The only WebAssembly toolman runs is the HTTP parser of Node's own fetch (undici's llhttp). V8
// optimises its hot parse function in a background thread, and a process that made one request
// waited at exit for that compile to finish: about 45 ms of every one-shot `chat` or live `test`
// (Node 20.20, 2 cores; docs/architecture.md). Its baseline code parses a reply fast enough.
setFlagsFromString('--liftoff-only');
// V8 optimises a function with TurboFan once it has run a certain amount of bytecode (its
// "interrupt budget"). Most toolman processes live for well under a second: the functions their
// start-up runs a few times were being optimised (on a background thread, CPU the process pays)
// only to exit soon after. Four times the default budget (67,584 on Node 20) leaves those alone
// and still optimises what stays hot: median CPU, interleaved runs (2026-11-24, Node 20.20, 2 shared
// cores): a 1-run `toolman test` shard 267 -> 229 ms, `test --replay` of suites/assistant.yaml
// 271 -> 248 ms, a 250-run shard 1,907 -> 1,693 ms, the 1,000-run suite unchanged within noise
// (5,317 -> 5,264 ms). docs/architecture.md, "Start-up".
setFlagsFromString('--interrupt-budget=270336');
try {
  process.cwd();
} catch {
  // Run from a folder deleted meanwhile: every relative path would fail, and Node's own error is a stack trace.
  process.stderr.write('toolman: error: the current folder no longer exists\n  hint: cd to a folder that exists and run it again\n');
  process.exit(2);
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
  require(join(cliFolder, 'code-cache.cjs')).installCodeCache(process.env, folders);
  ({ main, processIO } = require(join(cliFolder, 'main.cjs')));
} catch (error) {
  // A build cut short (an upgrade interrupted: a chunk missing) is a clear error, not a stack trace.
  process.stderr.write(`toolman: error: toolman's build cannot be loaded (${error && error.code ? error.code : 'broken'}: ${String(error && error.message ? error.message : error).split('\n')[0]})\n  hint: run \`npm install\` (or \`npm run build\`) in the toolman folder\n`);
  process.exit(2);
}

// A closed pipe (`toolman list | head`) is a normal way for a reader to stop, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.exit(2); // stdout is gone; there is nowhere left to report to
  });
}

main(process.argv.slice(2), processIO()).then((code) => {
  process.exitCode = code;
});
