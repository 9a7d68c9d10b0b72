// Regenerates scripts/common-shapes.json: the node shapes (see src/validate/schema-shape.ts) that
// occur most often in real tool catalogs (the shipped catalogs and the real definitions under
// test/fixtures/real-data). The build checks each with ajv and skips compiling the clean ones at
// run time. Run by hand after changing how shapes are computed: node scripts/collect-shapes.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleForScript } from './bundle-for-script.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const { decomposeSchema, schemaShape, loadCatalog, importTools } = await import(
  pathToFileURL(await bundleForScript('collect-shapes', ["export { decomposeSchema, schemaShape } from './src/validate/schema-shape.ts';", "export { loadCatalog } from './src/catalog/load-catalog.ts';", "export { importTools } from './src/import/import-tools.ts';"])).href
);

const schemas = [];
for (const file of readdirSync(join(root, 'catalogs')).filter((f) => f.endsWith('.yaml'))) schemas.push(...loadCatalog([join(root, 'catalogs', file)]).catalog.tools.map((t) => t.parameters));
const data = join(root, 'test', 'fixtures', 'real-data');
for (const file of [...readdirSync(join(data, 'mcp')).filter((f) => f.endsWith('.json')).map((f) => join(data, 'mcp', f)), join(data, 'bfcl', 'functions.json')]) {
  schemas.push(...importTools(JSON.parse(readFileSync(file, 'utf8'))).tools.map((t) => t.entry.parameters));
}
const counts = new Map();
for (const schema of schemas) {
  for (const piece of decomposeSchema(schema) ?? []) {
    const key = JSON.stringify(schemaShape(piece.node, false).shape);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
// Shapes seen at least 3 times, most frequent first; rare ones gain nothing from a precomputed answer.
const common = [...counts].filter(([, n]) => n >= 3).sort((a, b) => b[1] - a[1]).map(([key]) => key);
writeFileSync(join(root, 'scripts', 'common-shapes.json'), JSON.stringify(common, null, 0).replace(/","/g, '",\n"') + '\n');
console.log(`${common.length} shapes (of ${counts.size} distinct, from ${schemas.length} schemas) covering ${common.reduce((s, k) => s + counts.get(k), 0)} of ${[...counts.values()].reduce((a, b) => a + b, 0)} pieces`);
