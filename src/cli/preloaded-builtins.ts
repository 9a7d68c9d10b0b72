import { positionals } from './v8-flags.js';

/**
 * The Node built-ins a command line will load anyway, which bin/toolman.js loads before it sets
 * the run's V8 flags (src/cli/v8-flags.ts).
 *
 * Why before: Node compiles its own built-in modules with code it keeps in its binary, made
 * under V8's default flags, and V8 refuses that code once any flag differs (the flags' hash is part
 * of it, as for toolman's own code cache). A built-in first loaded after bin set
 * `--interrupt-budget` and `--liftoff-only` was compiled from its source: loading fifteen of them
 * took 22 ms instead of 7 (Node 20.20, 2026-11-24), and Node's fetch (undici, with http, http2
 * and tls), the largest, was compiled afresh on every live `chat`. Loaded first, they take the
 * binary's code; what a run never needs is not loaded, as a miss here only costs the compile it
 * would have cost anyway.
 *
 * `global:Name` reads a global Node defines lazily (Node's fetch behind `Headers`, web streams
 * behind `ReadableStream`), which loads the modules behind it.
 */
export function builtinsFor(argv: readonly string[]): string[] {
  const words = positionals(argv);
  const command = words[0];
  // Every run: whether stdin is a terminal (tty, which loads net), commander (child_process, process).
  const builtins = ['node:tty', 'node:net', 'node:child_process', 'node:process', 'node:util/types'];
  if (command === 'format') builtins.push(...TOOL_RUNNERS);
  if (command === 'budget' || command === 'diff' || command === 'call') builtins.push(...TOOL_RUNNERS, TIMING);
  const conversation = command === 'chat' || (command === 'test' && !['merge', 'init'].includes(words[1] ?? ''));
  if (conversation) {
    // The provider SDKs read a reply as a web stream, live or replayed.
    builtins.push(...TOOL_RUNNERS, TIMING, 'global:ReadableStream');
    // A live conversation sends through Node's fetch; a replay or a coverage report never does.
    if (!argv.some((word) => OFFLINE_FLAGS.has(word))) builtins.push('global:Headers');
  }
  return builtins;
}

/** What opening a catalog's tools loads: the module runner's worker threads, the http runner's address checks. */
const TOOL_RUNNERS = ['node:worker_threads', 'node:dns'];
/** What commands that time their work load (`performance` from perf_hooks). */
const TIMING = 'node:perf_hooks';

/** `chat` and `test` options after which no request goes out through Node's fetch. */
const OFFLINE_FLAGS = new Set(['--replay', '--coverage']);
