#!/usr/bin/env node
// The one place toolman touches process exit: everything below returns an exit code.
import { main, processIO } from '../dist/main.js';

// A closed pipe (`toolman list | head`) is a normal way for a reader to stop, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2), processIO());
