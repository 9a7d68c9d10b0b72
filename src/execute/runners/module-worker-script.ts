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
/** Each stateful call's waiting step: resolved by the host's next message (or its cancel). */
const steps = new Map();
/** A plugin kind's runner per config (configKey): created once, then used by every call with that config. */
const pluginRunners = new Map();

parentPort.on('message', (message) => {
  if (message.type === 'call') void calls.run(message.id, () => call(message));
  else if (message.type === 'next') steps.get(message.id)?.push({ json: message.json });
  else if (message.type === 'cancel') {
    running.get(message.id)?.abort();
    steps.get(message.id)?.push({ cancel: true });
  } else if (message.type === 'forget') scratches.delete(message.scratchId);
  else if (message.type === 'close') void closePlugins();
});

async function call({ id, target, args, scratchId, cwd, tool, stateful }) {
  const controller = new AbortController();
  running.set(id, controller);
  // Steps asked for while the module still loads wait here for the generator.
  if (stateful) steps.set(id, stepQueue());
  try {
    let module;
    try {
      module = await load();
    } catch (error) {
      throw new Error('cannot load ' + label + ': ' + describe(error));
    }
    if (target.describe) {
      post({ type: 'done', id, json: toJson(describePlugin(module), 'the plugin description') });
      return;
    }
    const name = target.plugin === undefined ? target.export : target.plugin;
    const fn = target.plugin === undefined ? exported(module, target.export) : await pluginRun(module, target, cwd);
    let scratch = scratches.get(scratchId);
    if (!scratch) scratches.set(scratchId, (scratch = new Map()));
    const progress = (message) => {
      if (running.has(id)) post({ type: 'progress', id, message: describe(message) });
    };
    const value = await fn(args, { cwd, signal: controller.signal, progress, scratch, tool });
    const iterator = asyncIterator(value);
    if (stateful && iterator) {
      await drive(id, iterator, name, controller.signal);
      return;
    }
    if (iterator) throw new Error(name + ' returned an async generator, which only a tool with mode: stateful can read; give the tool mode: stateful');
    post({ type: 'done', id, json: toJson(value, name) });
  } catch (error) {
    post({ type: 'failed', id, message: describe(error) });
  } finally {
    running.delete(id);
    steps.delete(id);
  }
}

function exported(module, exportName) {
  const fn = exportName === 'default' ? (module.default ?? module) : module[exportName];
  if (typeof fn !== 'function') throw new Error(label + ' has no exported function ' + JSON.stringify(exportName));
  return fn;
}

// A generator, or any object that gives an async iterator: what a stateful tool returns.
function asyncIterator(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    if (typeof value[Symbol.asyncIterator] === 'function') return value[Symbol.asyncIterator]();
  } catch {
    return undefined;
  }
  return undefined;
}

// One step per host request: the generator runs only as far as toolman has asked, so what it
// yields is never more than toolman keeps. A cancel returns it, so its finally blocks run.
function stepQueue() {
  const queue = [];
  let wake;
  return {
    push(step) {
      queue.push(step);
      if (wake) wake();
    },
    async take(signal) {
      // Once cancelled, never another step, even one asked for before the cancel came.
      if (signal.aborted) return { cancel: true };
      while (queue.length === 0) await new Promise((resolve) => (wake = resolve));
      wake = undefined;
      return queue.shift();
    },
  };
}

async function drive(id, iterator, name, signal) {
  const queue = steps.get(id);
  try {
    for (;;) {
      const step = await queue.take(signal);
      if (step.cancel) {
        const ended = typeof iterator.return === 'function' ? await iterator.return() : undefined;
        post({ type: 'done', id, json: toJson(ended ? ended.value : null, name) });
        return;
      }
      const sent = step.json === undefined ? undefined : JSON.parse(step.json);
      const result = await iterator.next(sent);
      if (result.done) {
        post({ type: 'done', id, json: toJson(result.value, name) });
        return;
      }
      let json;
      try {
        json = toJson(result.value, name);
      } catch (error) {
        if (typeof iterator.return === 'function') await iterator.return();
        throw new Error(name + ' yielded a value that is not JSON: ' + describe(error));
      }
      post({ type: 'yield', id, json });
    }
  } finally {
    steps.delete(id);
  }
}

// The plugin object: the toolmanPlugin export, or a default export that is one.
function pluginOf(module) {
  if (module.toolmanPlugin !== undefined) return module.toolmanPlugin;
  const fallback = module.default;
  if (fallback && typeof fallback === 'object' && fallback.toolmanPlugin !== undefined) return fallback.toolmanPlugin;
  if (fallback && typeof fallback === 'object' && 'kinds' in fallback) return fallback;
  return undefined;
}

// What toolman checks on its side (apiVersion, kinds, configSchema): only JSON crosses.
function describePlugin(module) {
  const plugin = pluginOf(module);
  if (plugin === undefined || plugin === null || typeof plugin !== 'object') return { found: false, exports: Object.keys(module).slice(0, 20) };
  const kinds = {};
  const given = plugin.kinds && typeof plugin.kinds === 'object' ? plugin.kinds : undefined;
  for (const name of given ? Object.keys(given) : []) {
    const kind = given[name];
    if (!kind || typeof kind !== 'object') {
      kinds[name] = { create: false };
      continue;
    }
    kinds[name] = { create: typeof kind.create === 'function', configSchema: kind.configSchema, description: typeof kind.description === 'string' ? kind.description : undefined };
  }
  return { found: true, apiVersion: plugin.apiVersion, kinds: given ? kinds : null };
}

// The runner a plugin kind creates for one config, made on the first call with that config.
async function pluginRun(module, target, cwd) {
  let runner = pluginRunners.get(target.configKey);
  if (!runner) {
    runner = (async () => {
      const plugin = pluginOf(module);
      const kind = plugin && plugin.kinds ? plugin.kinds[target.plugin] : undefined;
      if (!kind || typeof kind.create !== 'function') throw new Error(label + ' has no plugin kind ' + JSON.stringify(target.plugin));
      const made = await kind.create(target.config, { catalogDir: target.catalogDir, cwd });
      if (!made || typeof made.run !== 'function') throw new Error(label + ': kind ' + JSON.stringify(target.plugin) + ' created a runner without a run function');
      return made;
    })();
    pluginRunners.set(target.configKey, runner);
    runner.catch(() => pluginRunners.delete(target.configKey));
  }
  const made = await runner;
  return (args, context) => made.run(args, context);
}

// toolman is stopping this worker: each runner may close what it opened (connections, files).
async function closePlugins() {
  const made = await Promise.allSettled([...pluginRunners.values()]);
  pluginRunners.clear();
  await Promise.allSettled(made.map((r) => (r.status === 'fulfilled' && typeof r.value.close === 'function' ? r.value.close() : undefined)));
  post({ type: 'closed' });
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
