import { createHash } from 'node:crypto';
import Module, { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { Script } from 'node:vm';
import { CacheStore } from '../shared/cache-store.js';

export { v8FlagsFor } from './v8-flags.js';
export { builtinsFor } from './preloaded-builtins.js';

/**
 * V8's compiled code for toolman's own CommonJS chunks (dist/cli/, see scripts/build-cli.mjs),
 * kept from one run to the next in toolman's cache (`code/`). Node 20 compiles every module's text
 * on every start and, for what a function needs only when it runs, again when it first runs: most
 * of what a warm one-shot `chat` or `test` spends after Node's own start. V8 can take that code
 * back as a classic script's `cachedData`; the cache is written once per chunk at the end of a run
 * (after it ran, so the functions it used are in it), and read on the next.
 *
 * The cache folder is not trusted, and compiled code is code: V8 checks a blob's V8 version, flags
 * and the source's length, not its content. So a blob is only ever offered to V8 for the exact
 * text it was made from (its name is a hash of that text, the file's path, Node's version and the
 * V8 flags in force) and only when its HMAC says this user's toolman wrote it (CacheStore); anything else is a
 * miss, and a blob V8 rejects (`cachedDataRejected`) is compiled afresh and replaced. Failing to
 * read or write the cache only ever costs the time it would have saved.
 */
export class CodeCache {
  private readonly fresh: { name: string; script: Script }[] = [];
  private readonly used = new Set<string>();
  /** What happened to each chunk compiled: taken from the cache, compiled (no entry), or compiled because V8 refused the entry. */
  readonly counts = { used: 0, compiled: 0, rejected: 0 };

  constructor(
    private readonly store: CacheStore | undefined,
    /**
     * What else a blob depends on: Node's version and platform, and the V8 flags in force. V8 refuses
     * a blob made under other flags; named by them, runs with different flags (`validate`'s heap
     * flag, a NODE_OPTIONS) each keep entries of their own instead of replacing each other's.
     */
    private readonly salt = runtimeSalt([]),
  ) {}

  /**
   * A CommonJS module's wrapper function, `(exports, require, module, __filename, __dirname)`,
   * compiled from `source` with the cached code for exactly this text when there is trustworthy one.
   */
  compile(source: string, filename: string): (...args: unknown[]) => unknown {
    // The wrapper on a line of its own, so that line and column numbers in stack traces are the file's.
    const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
    const name = this.store ? createHash('sha256').update(this.salt).update('\0').update(filename).update('\0').update(wrapped).digest('hex') : undefined;
    const cachedData = name ? this.store!.readBytes(name, MAX_ENTRY_BYTES) : undefined;
    const script = new Script(wrapped, { filename, lineOffset: -1, ...(cachedData ? { cachedData } : {}) });
    if (cachedData && !script.cachedDataRejected) (this.counts.used++, this.used.add(name!));
    else {
      this.counts[cachedData ? 'rejected' : 'compiled']++;
      if (name) this.fresh.push({ name, script });
    }
    return script.runInThisContext() as (...args: unknown[]) => unknown;
  }

  /**
   * Stores the code of every chunk compiled afresh in this run: what V8 has compiled of it by now.
   * A run that had to store some is usually the first of a new toolman build, whose chunks have
   * new texts: entries no run has written for a week then go (an entry still in use is only
   * written again, once).
   */
  save(): void {
    const written = new Set<string>();
    for (const { name, script } of this.fresh.splice(0)) {
      const data = script.createCachedData();
      if (data.length <= MAX_ENTRY_BYTES) (this.store!.writeBytes(name, data), written.add(name));
    }
    if (written.size) this.store!.prune(ENTRY_LIFETIME_MS, new Set([...written, ...this.used]));
  }
}

/** How long an entry no run has written stays once a run writes new ones (see `save`). */
const ENTRY_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/** An entry bigger than this is not kept (the tokenizer's chunks, the largest, make a few MB). */
const MAX_ENTRY_BYTES = 32 << 20;

/**
 * Node's version and platform, the V8 flags toolman set (`v8FlagsFor`) and those Node was started
 * with (its own options, NODE_OPTIONS; the ones that are not V8 flags only cost an entry of their own).
 */
function runtimeSalt(flags: readonly string[]): string {
  return JSON.stringify([process.version, process.arch, process.platform, flags, process.execArgv, process.env.NODE_OPTIONS ?? '']);
}

interface CompilingModule {
  exports: unknown;
  _compile(content: string, filename: string, ...rest: unknown[]): unknown;
}

/**
 * Has Node compile the CommonJS files under `folders` (toolman's dist/cli/ and its own
 * node_modules/: re2js, for one, is 260 KB Node would compile on every run) through a CodeCache
 * in the environment's cache (none with TOOLMAN_CACHE_DIR=off: then they are compiled as Node
 * would), and save what was compiled when the process exits. Every other file Node loads, and
 * anything that is not plainly CommonJS, is compiled by Node as before. Called once, by
 * bin/toolman.js, before it loads the CLI and after it set `flags` (`v8FlagsFor`): no flag may
 * change after this, or V8 refuses the entries this process made before the change.
 */
export function installCodeCache(env: Record<string, string | undefined>, folders: readonly string[], flags: readonly string[] = []): CodeCache {
  const cache = new CodeCache(CacheStore.open(env, 'code'), runtimeSalt(flags));
  const prefixes = folders.map((folder) => (folder.endsWith(sep) ? folder : folder + sep));
  const proto = Module.prototype as unknown as CompilingModule;
  const nodeCompile = proto._compile;
  proto._compile = function (this: CompilingModule, content: string, filename: string, ...rest: unknown[]) {
    const format = rest[0];
    const ours = (format === 'commonjs' || format === undefined) && prefixes.some((prefix) => filename.startsWith(prefix));
    // A chunk that import()s an ES module is left to Node: a vm.Script cannot import() on Node 20 without a flag.
    if (!ours || content.startsWith(NODE_COMPILES)) return nodeCompile.call(this, content, filename, ...rest);
    let wrapper: (...args: unknown[]) => unknown;
    try {
      wrapper = cache.compile(content, filename);
    } catch (error) {
      // A .js file of a package without a "type" may be an ES module; Node finds that out itself.
      if (format === undefined && error instanceof SyntaxError) return nodeCompile.call(this, content, filename, ...rest);
      throw error;
    }
    const require = createRequire(filename);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  process.once('exit', () => cache.save());
  return cache;
}

/** The first line scripts/build-cli.mjs gives a chunk that keeps a real import() (kept in step with NODE_COMPILES there). */
export const NODE_COMPILES = '/* toolman: compiled by Node: it imports an ES module */';
