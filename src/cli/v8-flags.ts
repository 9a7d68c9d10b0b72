/**
 * The V8 flags a run of toolman sets, all of them before any of the CLI's own code is compiled
 * (bin/toolman.js sets them, then installs the code cache with them as part of every entry's name).
 *
 * V8 stamps compiled code with a hash of every flag not at its default and refuses code made under
 * other flags (`cachedDataRejected`). A flag set once the CLI runs (as `validate` once set its heap
 * flag) splits one process in two: chunks compiled before it carry one hash, chunks compiled after
 * (and every entry the process writes at exit) another, so each run refused and rewrote the entries
 * the last one made. Setting the flags first, and naming entries by them (src/cli/code-cache.ts),
 * gives each set of flags entries of its own that later runs with the same flags take as they are.
 * Nothing else in toolman sets V8 flags (test/cli/v8-flags.test.ts holds that).
 */
export function v8FlagsFor(argv: readonly string[]): string[] {
  const command = commandOf(argv);
  // A server lives for as long as its clients want it: V8's defaults are made for that (see SERVE_FLAGS).
  if (command === 'serve') return [...SERVE_FLAGS];
  const flags = [...EVERY_RUN];
  if (command === 'validate' && VALIDATE_HEAP_GROWING_PERCENT > 0) flags.push(`--heap-growing-percent=${VALIDATE_HEAP_GROWING_PERCENT}`);
  if (command === 'test') flags.push(TEST_NO_INCREMENTAL_MARKING);
  return flags;
}

/**
 * The only WebAssembly toolman runs is the HTTP parser of Node's own fetch (undici's llhttp). V8
 * optimises its hot parse function in a background thread, and a process that made one request
 * waited at exit for that compile to finish: about 45 ms of every one-shot `chat` or live `test`
 * (Node 20.20, 2 cores; docs/architecture.md). Its baseline code parses a reply fast enough.
 */
const LIFTOFF_ONLY = '--liftoff-only';

/**
 * V8 optimises a function with TurboFan once it has run a certain amount of bytecode (its
 * "interrupt budget"). Most toolman processes live for well under a second: the functions their
 * start-up runs a few times were being optimised (on a background thread, CPU the process pays)
 * only to exit soon after. Four times the default budget (67,584 on Node 20) leaves those alone
 * and still optimises what stays hot: median CPU, interleaved runs (2026-11-24, Node 20.20, 2 shared
 * cores): a 1-run `toolman test` shard 267 -> 229 ms, `test --replay` of suites/assistant.yaml
 * 271 -> 248 ms, a 250-run shard 1,907 -> 1,693 ms, the 1,000-run suite unchanged within noise
 * (5,317 -> 5,264 ms); eight times made shards cheaper but the whole run slower
 * (docs/performance.md).
 */
const LATER_TURBOFAN = '--interrupt-budget=270336';

const EVERY_RUN = [LIFTOFF_ONLY, LATER_TURBOFAN];

/**
 * `serve` sets none of the flags above: both trade a long run's speed for a short one's. A server
 * runs its call path many thousand times, and optimised code sooner is what it wants (with the later
 * TurboFan its first thousands of `--port` calls ran at about 1.5x the CPU of later ones,
 * 2026-11-24); an HTTP tool's fetch may parse many replies in one server, where the optimised
 * WebAssembly parser pays for its compile. V8 flags that size the young generation
 * (`--max-semi-space-size`) take effect only on the command line, not from here (measured on
 * Node 20.20: a new space set this way never grew past the default), so serve has none.
 */
const SERVE_FLAGS: readonly string[] = [];

/**
 * V8's heap growth for `validate`: at most 1.8 times what the heap held after the last full
 * collection. V8 otherwise lets it grow to up to four times that (it judges by how fast the
 * collector is), and `validate` leaves a lot of short-lived garbage behind (schema compiles, one
 * finding's words at a time): at 50,000 tools the live heap is about 160 MB and the peak was 760-890
 * MB. At 100 a first run into an empty cache peaked at 577-602 MB (six runs), too close to the
 * 600 MB asked; at 80, 561-582 MB for about 4% more CPU (docs/performance.md). Small catalogs
 * are not affected: V8 grows a small heap by at least 16 MB anyway.
 */
export const VALIDATE_HEAP_GROWING_PERCENT = 80;

/**
 * No incremental marking for `toolman test`: V8 starts marking for a full collection in the
 * background once the old generation nears its limit, and a short run that got there near its end
 * waited at exit for the collection to finish (Node drains V8's tasks before it exits): 10-17 ms of
 * a `test --replay` of suites/assistant.yaml, after its report was printed. Without it V8 collects
 * when the limit is reached, all at once. Interleaved A/B (2026-11-24, Node 20.20, 2 shared cores):
 * that replay 163 -> 153 ms wall, 173 -> 161 ms CPU; 600 live runs in one process 1,118 -> 1,110 ms
 * CPU, peak RSS 140 -> 142 MB (docs/performance.md). Not for `validate` (its 50,000-tool peak is
 * held under 600 MB by the growth flag above) nor `serve` (a long-lived server's pauses).
 */
const TEST_NO_INCREMENTAL_MARKING = '--no-incremental-marking';

/** The options before the command that take a value (src/cli/main.ts: `-c, --catalog <file>`). */
const GLOBAL_WITH_VALUE = new Set(['-c', '--catalog']);

/**
 * The command a command line runs: its first word that is neither an option nor a global option's
 * value. Only the flags depend on it: a command line it misreads still runs, with other flags.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  return positionals(argv)[0];
}

/**
 * The words of a command line that are neither options nor a global option's value, up to `--`
 * (the command, then its arguments). A guess past the command (a command's own option with a
 * value counts its value as a word): what reads it may only choose speed, never behaviour.
 */
export function positionals(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (GLOBAL_WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) words.push(word);
  }
  return words;
}
