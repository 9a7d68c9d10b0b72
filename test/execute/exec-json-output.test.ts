import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { runBin } from '../helpers/cli.js';

/**
 * An `exec` tool answers with `{exit_code, stdout, stderr}`: `references:` selectors, schema
 * result checks and `output_schema` written for the program's JSON could never read it. With
 * `output: json` the call's result is the JSON the program prints, which they read; without it,
 * `validate` says so (TM1420).
 */
const NODE = JSON.stringify(process.execPath);
const PAGES = "console.log(JSON.stringify({results: [{title: 'Install', url: 'https://docs.example.com/install'}]}))";

function catalog(output: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-exec-json-'));
  const tool = (name: string, script: string, extra = '') => `  - name: ${name}
    description: Search the product documentation and return matching pages with URLs.
    references: { items: "$.results[*]", url: $.url, title: $.title }
    evaluation: [page_shape]
    output_schema: { type: object, required: [results] }
    parameters: { type: object, properties: {} }
    handler:
      exec: { argv: [${NODE}, -e, ${JSON.stringify(script)}]${output}${extra} }
`;
  writeFileSync(
    join(dir, 'toolman.yaml'),
    `toolman: 1
name: t
evaluations:
  page_shape: { schema: { type: object, required: [results] } }
tools:
${tool('search_docs', PAGES)}${tool('chatty', "console.log('Searching...'); console.log('{}')")}${tool('silent', '')}${tool('flood', "console.log(JSON.stringify({results: 'x'.repeat(500)}))", ', max_output_bytes: 100')}`,
  );
  return dir;
}

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function call(dir: string, name: string) {
  const manager = await ToolManager.open({ catalogs: ['toolman.yaml'], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off', PATH: process.env.PATH ?? '' }, requireValid: false });
  managers.push(manager);
  const session = await manager.session({});
  return (await session.runTurn([{ id: 'c1', name, arguments: {} }])).responses[0]!;
}

describe('exec output: json', () => {
  it('the result is the printed JSON: sources found, the schema check and output_schema pass, the model gets the value', async () => {
    const response = await call(catalog(', output: json'), 'search_docs');
    expect(response).toMatchObject({ ok: true, references: [{ url: 'https://docs.example.com/install', title: 'Install' }], evaluations: [{ name: 'page_shape', verdict: 'pass' }] });
    expect(JSON.parse(response.content)).toEqual({ results: [{ title: 'Install', url: 'https://docs.example.com/install' }] });
  });

  it('without it, the same program gives the process result: no source, every check fails (what TM1420 warns of)', async () => {
    const dir = catalog('');
    const response = await call(dir, 'search_docs');
    expect(response.ok).toBe(false);
    expect(response.error_kind).toBe('invalid_output');
    const { diagnostics } = await validateCatalog(['toolman.yaml'], { cwd: dir });
    const warned = diagnostics.filter((d) => d.code === 'TM1420').map((d) => d.message);
    expect(warned).toHaveLength(4);
    expect(warned[0]).toContain('its references: selectors (they find no source in it), its result check page_shape (it fails every call), its output_schema (every call fails it: invalid_output)');
    // With output: json there is nothing to say.
    expect((await validateCatalog(['toolman.yaml'], { cwd: catalog(', output: json') })).diagnostics.filter((d) => d.code === 'TM1420')).toEqual([]);
  });

  it('output that is not JSON, empty, or cut at max_output_bytes is the call\'s error, saying which', async () => {
    const dir = catalog(', output: json');
    expect((await call(dir, 'chatty')).error).toMatch(/chatty: .* printed something that is not JSON on standard output \(output: json\); it began "Searching\.\.\.\\n\{\}"/);
    expect((await call(dir, 'silent')).error).toMatch(/silent: .* printed nothing on standard output, and its handler says output: json/);
    expect((await call(dir, 'flood')).error).toMatch(/flood: .* printed more than 100 bytes \(max_output_bytes\), so its JSON output \(output: json\) was cut/);
  });

  it('from the command line: call shows the sources and the verdict', async () => {
    const run = await runBin(['call', 'search_docs', '--json'], { cwd: catalog(', output: json'), env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).responses[0]).toMatchObject({ ok: true, references: [{ url: 'https://docs.example.com/install' }], evaluations: [{ name: 'page_shape', verdict: 'pass' }] });
  });
});
