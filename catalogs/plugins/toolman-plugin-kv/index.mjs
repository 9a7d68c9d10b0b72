// An example toolman handler plugin (docs/catalog-format.md#handler-plugins): one runner kind,
// `kv`, a small key-value store. A catalog uses it as
//
//   handler: { plugin: ./plugins/toolman-plugin-kv#kv, config: { namespace: notes, operation: set } }
//
// toolman checks each handler's config against `configSchema` (`toolman validate` points at what
// is wrong), calls `create` once per config in the plugin's worker thread, and runs the tool's
// calls through the runner it returns, with the executor's rules (arguments checked against the
// tool's parameters, confirmation, timeouts, truncation) as for any handler.
//
// The store lives in memory, in the plugin's worker: it lasts as long as toolman runs (a worker
// replaced after a crash starts empty), and every tool that names the same namespace shares it.

/** namespace → Map(key → { value, updated }) */
const stores = new Map();

const configSchema = {
  type: 'object',
  properties: {
    namespace: { type: 'string', minLength: 1, description: 'Which store: tools with the same namespace share one' },
    operation: { enum: ['set', 'get', 'list', 'delete'], description: 'What a call does: set {key, value}, get {key}, list {prefix?}, delete {key}' },
    max_entries: { type: 'integer', minimum: 1, maximum: 100000, default: 1000, description: 'Most keys the namespace holds; a set past it fails' },
    max_value_chars: { type: 'integer', minimum: 1, maximum: 1000000, default: 4000, description: 'Longest value (as JSON text) a set accepts' },
  },
  required: ['namespace', 'operation'],
  additionalProperties: false,
};

function storeOf(namespace) {
  let store = stores.get(namespace);
  if (!store) stores.set(namespace, (store = new Map()));
  return store;
}

function keyOf(args) {
  if (typeof args.key !== 'string' || args.key === '') throw new Error('give a key: a non-empty string');
  return args.key;
}

function create(config) {
  const { namespace, operation, max_entries: maxEntries = 1000, max_value_chars: maxChars = 4000 } = config;
  const store = storeOf(namespace);
  return {
    async run(args) {
      switch (operation) {
        case 'set': {
          const key = keyOf(args);
          const text = JSON.stringify(args.value ?? null);
          if (text.length > maxChars) throw new Error(`the value is ${text.length} characters; at most ${maxChars} are kept`);
          if (!store.has(key) && store.size >= maxEntries) throw new Error(`${namespace} is full (${maxEntries} keys); delete one first`);
          store.set(key, { value: args.value ?? null, updated: new Date().toISOString().slice(0, 10) });
          return { saved: key, keys: store.size };
        }
        case 'get': {
          const key = keyOf(args);
          const entry = store.get(key);
          return entry ? { key, value: entry.value } : { key, found: false, keys: [...store.keys()].slice(0, 20) };
        }
        case 'list': {
          const prefix = typeof args.prefix === 'string' ? args.prefix : '';
          const entries = [...store].filter(([key]) => key.startsWith(prefix)).map(([key, entry]) => ({ key, value: entry.value }));
          return { namespace, entries };
        }
        case 'delete': {
          const key = keyOf(args);
          return { deleted: store.delete(key), key };
        }
        default:
          throw new Error(`unknown operation ${operation}`);
      }
    },
  };
}

export const toolmanPlugin = {
  apiVersion: 1,
  kinds: {
    kv: { description: 'A key-value store shared by the tools that name the same namespace', configSchema, create },
  },
};
