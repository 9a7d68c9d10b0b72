#!/usr/bin/env node
// The one place toolman touches process exit: everything below returns an exit code.
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node 22+ caches compiled code between runs; on Node 20 this is a no-op.
module.enableCompileCache?.();
// The only WebAssembly toolman runs is the HTTP parser of Node's own fetch (undici's llhttp). V8
// optimises its hot parse function in a background thread, and a process that made one request
// waited at exit for that compile to finish: about 45 ms of every one-shot `chat` or live `test`
// (Node 20.20, 2 cores; docs/architecture.md). Its baseline code parses a reply fast enough.
setFlagsFromString('--liftoff-only');
let cli;
try {
  cli = await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  process.stderr.write('toolman: error: toolman is not built (dist/ is missing)\n  hint: run `npm install` (or `npm run build`) in the toolman folder\n');
  process.exit(2);
}
const { main, processIO } = cli;

// A closed pipe (`toolman list | head`) is a normal way for a reader to stop, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.exit(2); // stdout is gone; there is nowhere left to report to
  });
}

process.exitCode = await main(process.argv.slice(2), processIO());
