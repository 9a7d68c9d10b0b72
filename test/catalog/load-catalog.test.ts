import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { ErrorCode } from '../../src/shared/errors.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

const layered = 'test/fixtures/catalogs/layered/root.yaml';

describe('loadCatalog', () => {
  it('merges included files, the including file first', () => {
    const { catalog, diagnostics } = loadCatalog([layered], { cwd: ROOT });
    expect(diagnostics).toEqual([]);
    expect(catalog.name).toBe('layered');
    expect(catalog.files).toEqual([layered, 'test/fixtures/catalogs/layered/parts/files.yaml']);
    expect(catalog.tools.map((t) => t.name)).toEqual(['ping', 'helper', 'read_file', 'write_file']);
  });

  it('applies defaults: own value, then the nearest file\'s defaults, then the including file\'s, then toolman\'s', () => {
    const { catalog } = loadCatalog([layered], { cwd: ROOT });
    const byName = new Map(catalog.tools.map((t) => [t.name, t]));
    expect(byName.get('ping')).toMatchObject({ category: 'general', timeoutMs: 5000, concurrency: 'safe', effect: 'read' });
    expect(byName.get('read_file')).toMatchObject({ category: 'files', timeoutMs: 5000, concurrency: 'serial' });
    expect(byName.get('write_file')).toMatchObject({ timeoutMs: 100, effect: 'write', confirm: 'auto', maxResultTokens: 2000, truncation: 'smart' });
  });

  it('lets a file override a profile from a file it includes', () => {
    const { catalog } = loadCatalog([layered], { cwd: ROOT });
    expect(catalog.profiles.get('minimal')).toMatchObject({ include: ['ping'], file: layered });
  });

  it('turns agents into tools with a default task parameter', () => {
    const { catalog } = loadCatalog([layered], { cwd: ROOT });
    const helper = catalog.tools.find((t) => t.name === 'helper')!;
    expect(helper.source).toEqual({ kind: 'agent', name: 'helper', file: layered, pointer: '/agents/helper' });
    expect(helper.parameters).toMatchObject({ required: ['task'] });
    expect(catalog.agents.get('helper')?.a2a?.url).toBe('http://127.0.0.1:4100');
  });

  it('reads a server entry\'s protocol, roots and oauth settings (MCP 2026-07-28)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-load-'));
    writeFileSync(
      join(dir, 'toolman.yaml'),
      'toolman: 1\nmcp_servers:\n  remote:\n    url: https://mcp.example.com/mcp\n    protocol: "2026-07-28"\n    oauth: { client_id: abc, client_secret_env: ABC_SECRET, scopes: [read, write], client_metadata_url: "https://toolman.example/client.json" }\n  local:\n    command: server\n    protocol: legacy\n    roots: [.]\n',
    );
    const { catalog, diagnostics } = loadCatalog(['toolman.yaml'], { cwd: dir });
    expect(diagnostics).toEqual([]);
    expect(catalog.mcpServers.get('remote')).toMatchObject({ protocol: '2026-07-28', oauth: { clientId: 'abc', clientSecretEnv: 'ABC_SECRET', scopes: ['read', 'write'], clientMetadataUrl: 'https://toolman.example/client.json' } });
    expect(catalog.mcpServers.get('remote')?.roots).toBeUndefined();
    expect(catalog.mcpServers.get('local')).toMatchObject({ protocol: 'legacy', roots: ['.'] });
    expect(catalog.mcpServers.get('local')?.oauth).toBeUndefined();
  });

  it('refuses a protocol it does not know and a client metadata URL that is not https with a path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-load-'));
    writeFileSync(join(dir, 'toolman.yaml'), 'toolman: 1\nmcp_servers:\n  remote:\n    url: https://mcp.example.com/mcp\n    protocol: "2025-11-25"\n    oauth: { client_metadata_url: "http://toolman.example/" }\n');
    const { diagnostics } = loadCatalog(['toolman.yaml'], { cwd: dir });
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['TM0103', 5],
      ['TM0105', 6],
    ]);
  });

  it('shows include paths relative to the working directory', () => {
    const { catalog } = loadCatalog(['root.yaml'], { cwd: join(FIXTURES, 'catalogs', 'layered') });
    expect(catalog.files).toEqual(['root.yaml', 'parts/files.yaml']);
  });

  it('throws a typed error, with a hint, for a root file that cannot be read', () => {
    expect(() => loadCatalog(['nope.yaml'], { cwd: ROOT })).toThrow(expect.objectContaining({ code: ErrorCode.FILE_UNREADABLE, hint: expect.any(String) }));
  });

  it('keeps going after schema errors, loading what it can', () => {
    const { catalog, diagnostics } = loadCatalog(['test/fixtures/diagnostics/TM0103-bad-value.yaml'], { cwd: ROOT });
    expect(diagnostics.map((d) => d.code)).toEqual(['TM0103']);
    expect(catalog.tools[0]).toMatchObject({ name: 'get_weather', effect: 'write' });
  });
});

describe('summaries, references and evaluations in the catalog', () => {
  it('overrides set references and evaluation; agents list checks; budget.summarize comes from an included file when the root has none', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'toolman-powers-load-'));
    writeFileSync(
      join(dir, 'part.yaml'),
      `toolman: 1
budget: { summarize: { provider: anthropic, model: claude-haiku-4-5, threshold: 300 } }
tools:
  - name: read_page
    description: Read a page.
    truncation: summarize
evaluations:
  grounded: { rubric: Every claim is backed by the results. }
`,
    );
    writeFileSync(
      join(dir, 'root.yaml'),
      `toolman: 1
include: [part.yaml]
tools:
  - name: search
    description: Search the web.
overrides:
  - tools: [search]
    set: { references: { items: "$.results[*]", url: $.url }, evaluation: [grounded] }
agents:
  helper:
    description: A helper agent.
    evaluation: [grounded]
    local: { provider: openai }
evaluations:
  no_pii: { not_regex: "@", on: answer }
`,
    );
    const { catalog, diagnostics } = loadCatalog(['root.yaml'], { cwd: dir });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const byName = new Map(catalog.tools.map((t) => [t.name, t]));
    expect(byName.get('search')).toMatchObject({ references: { kind: 'select', items: '$.results[*]', url: '$.url' }, evaluation: ['grounded'] });
    expect(byName.get('helper')!.evaluation).toEqual(['grounded']);
    expect(byName.get('read_page')!.truncation).toBe('summarize');
    expect(catalog.budget.summarize).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5', threshold: 300, file: 'part.yaml' });
    expect([...catalog.evaluations.keys()]).toEqual(['no_pii', 'grounded']);
    expect(catalog.evaluations.get('no_pii')).toMatchObject({ kind: 'not_regex', pattern: '@', on: 'answer', file: 'root.yaml' });
  });
});
