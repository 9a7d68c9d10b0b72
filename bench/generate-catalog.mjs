// Writes a catalog of N tools (default 10,000) spread over include files, built from real tool
// definitions: the MCP servers' tool lists in ../shared/data/mcp and toolman's shipped catalogs.
// Each generated tool gets its own name and one extra parameter, so no two schemas are equal.
// With `uniqueShapes`, that parameter also differs in structure (its own `minimum`), so toolman's
// per-shape compile cache cannot help either: the worst case.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump, load } from 'js-yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function realToolPool() {
  const pool = [];
  const mcpDir = join(root, '..', 'shared', 'data', 'mcp');
  if (existsSync(mcpDir)) {
    for (const file of readdirSync(mcpDir).filter((f) => f.endsWith('.json'))) {
      const data = JSON.parse(readFileSync(join(mcpDir, file), 'utf8'));
      for (const tool of data.tools ?? []) {
        const { $schema: _drop, ...parameters } = tool.inputSchema ?? { type: 'object', properties: {} };
        pool.push({
          name: tool.name.replace(/[^a-zA-Z0-9_-]/g, '_'),
          ...(tool.title ? { title: tool.title } : {}),
          description: tool.description ?? 'No description given by the server.',
          category: file.replace(/\.json$/, '').replace(/[^a-z0-9]+/g, '_'),
          effect: tool.annotations?.destructiveHint ? 'destructive' : tool.annotations?.readOnlyHint ? 'read' : 'write',
          parameters,
          handler: { mock: [{ result: { ok: true } }] },
        });
      }
    }
  }
  for (const file of ['assistant', 'coding', 'enterprise']) {
    pool.push(...load(readFileSync(join(root, 'catalogs', `${file}.yaml`), 'utf8')).tools);
  }
  for (const file of readdirSync(join(root, 'catalogs', 'large'))) {
    pool.push(...load(readFileSync(join(root, 'catalogs', 'large', file), 'utf8')).tools);
  }
  return pool;
}

export function generateCatalog(dir, count = 10_000, { perFile = 1_000, uniqueShapes = false } = {}) {
  const pool = realToolPool();
  mkdirSync(dir, { recursive: true });
  const includes = [];
  for (let start = 0; start < count; start += perFile) {
    const tools = [];
    for (let i = start; i < Math.min(count, start + perFile); i++) {
      const base = pool[i % pool.length];
      const parameters = structuredClone(base.parameters ?? { type: 'object', properties: {} });
      parameters.type ??= 'object';
      const extra = uniqueShapes
        ? { type: 'integer', minimum: i, description: `Sequence number, at least ${i}` }
        : { type: 'string', description: `Correlation id for request ${i}` };
      parameters.properties = { ...(parameters.properties ?? {}), [`trace_${i}`]: extra };
      tools.push({ ...structuredClone(base), name: `${base.name.slice(0, 50)}_${i}`, parameters });
    }
    const file = `tools-${String(start / perFile).padStart(3, '0')}.yaml`;
    writeFileSync(join(dir, file), dump({ toolman: 1, tools }, { lineWidth: 120, noRefs: true }));
    includes.push(`./${file}`);
  }
  // The coding catalog's module and plugin handlers name files beside it: they come along, or every
  // copy of those tools is an error (TM0703, TM0740) and the commands that refuse a broken catalog
  // (`format`, `budget`) would measure only their refusal.
  for (const folder of ['handlers', 'plugins']) cpSync(join(root, 'catalogs', folder), join(dir, folder), { recursive: true });
  const rootFile = join(dir, 'catalog.yaml');
  // The enterprise catalog's tools name its evaluations and summarise with its small model: the
  // root carries those, so the generated catalog is as valid as the catalogs its tools come from.
  const enterprise = load(readFileSync(join(root, 'catalogs', 'enterprise.yaml'), 'utf8'));
  writeFileSync(rootFile, dump({ toolman: 1, name: `generated-${count}`, budget: { summarize: enterprise.budget.summarize }, evaluations: enterprise.evaluations, include: includes }));
  return { rootFile, poolSize: pool.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 10_000);
  const uniqueShapes = process.argv.includes('--unique-shapes');
  const { rootFile, poolSize } = generateCatalog(join(root, '.bench', `catalog-${count}${uniqueShapes ? '-unique' : ''}`), count, { uniqueShapes });
  console.log(`wrote ${rootFile} (${count} tools from ${poolSize} real definitions)`);
}
