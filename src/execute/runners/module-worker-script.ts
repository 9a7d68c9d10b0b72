/**
 * The code a module handler's worker thread runs (messages: `module-worker-protocol.ts`).
 *
 * Workers start from this text as a `data:` URL rather than from a file: the same text then runs
 * from the TypeScript sources under vitest, from the code-split bundle in dist/ (whose chunk names
 * and folders change with every build) and from any bundle an embedder makes of toolman, with no
 * file to ship, copy or find at run time. Not `new Worker(code, { eval: true })`: eval'd code is
 * CommonJS or ESM depending on the process's `--input-type`, while a `data:` URL is always an ES
 * module. It is plain JavaScript in a string, so it is not type-checked: keep it small, and use
 * neither backticks nor template placeholders in it.
 */
export const MODULE_WORKER_SCRIPT = String.raw`
import { AsyncLocalStorage } from 'node:async_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { moduleUrl, label } = workerData;
const post = (message) => parentPort.postMessage(message);
// Which call's code is running: whatever ends this thread is blamed on that call only, so toolman
// can run the other calls that were in flight here again.
const calls = new AsyncLocalStorage();
const blame = () => {
  const id = calls.getStore();
  return typeof id === 'number' ? { id } : {};
};
const exit = process.exit.bind(process);
process.exit = (code) => {
  const number = Number(code ?? process.exitCode ?? 0);
  post({ type: 'exiting', code: Number.isFinite(number) ? number : 0, ...blame() });
  return exit(code);
};

// A module's value may be anything, even an object whose toString throws.
function describe(value) {
  try {
    return value instanceof Error ? value.message : String(value);
  } catch {
    return 'a value that cannot be shown';
  }
}

// Thrown outside any call (a timer, an event, a promise nobody awaits): toolman fails the calls
// in flight here and replaces this worker. Nothing reaches the terminal.
process.on('uncaughtException', (error) => post({ type: 'crashed', how: 'threw', message: describe(error), ...blame() }));
process.on('unhandledRejection', (reason) => post({ type: 'crashed', how: 'rejected', message: describe(reason), ...blame() }));

// What the module prints goes to toolman, which shows it on its standard error (redacted), never
// on its standard output: that may be carrying a JSON document or the MCP protocol.
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, encoding, callback) => {
    let text;
    try {
      text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    } catch {
      text = describe(chunk);
    }
    post({ type: 'output', text });
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => done());
    return true;
  };
}

let loaded;
const load = () => (loaded ??= import(moduleUrl));
/** The module's scratch Map per host scratch store (one per session and tool). */
const scratches = new Map();
/** The AbortController of each call still running. */
const running = new Map();

parentPort.on('message', (message) => {
  if (message.type === 'call') void calls.run(message.id, () => call(message));
  else if (message.type === 'cancel') running.get(message.id)?.abort();
  else if (message.type === 'forget') scratches.delete(message.scratchId);
});

async function call({ id, exportName, args, scratchId, cwd, tool }) {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    let module;
    try {
      module = await load();
    } catch (error) {
      throw new Error('cannot load ' + label + ': ' + describe(error));
    }
    const fn = exportName === 'default' ? (module.default ?? module) : module[exportName];
    if (typeof fn !== 'function') throw new Error(label + ' has no exported function ' + JSON.stringify(exportName));
    let scratch = scratches.get(scratchId);
    if (!scratch) scratches.set(scratchId, (scratch = new Map()));
    const progress = (message) => {
      if (running.has(id)) post({ type: 'progress', id, message: describe(message) });
    };
    const value = await fn(args, { cwd, signal: controller.signal, progress, scratch, tool });
    post({ type: 'done', id, json: toJson(value, exportName) });
  } catch (error) {
    post({ type: 'failed', id, message: describe(error) });
  } finally {
    running.delete(id);
  }
}

// Results cross to toolman as JSON text.
function toJson(value, exportName) {
  let json;
  try {
    json = JSON.stringify(value === undefined ? null : value);
  } catch (error) {
    throw new Error(exportName + ' returned a value that is not JSON: ' + describe(error));
  }
  if (json === undefined) throw new Error(exportName + ' returned a value that is not JSON: a ' + typeof value);
  return json;
}
`;

export const MODULE_WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(MODULE_WORKER_SCRIPT)}`);
