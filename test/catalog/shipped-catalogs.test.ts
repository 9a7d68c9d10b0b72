import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { catalogSchema } from '../../src/catalog/catalog-schema.js';
import { validateCatalog } from '../../src/validate/validate-catalog.js';
import { CATALOGS, ROOT } from '../helpers/paths.js';

const SHIPPED = ['assistant', 'coding', 'enterprise', 'large'];

describe('shipped catalogs', () => {
  // The confusable-tools rule may warn about two pairs on a shipped catalog (issue 20's bound): large.yaml has two.
  it.each(SHIPPED)('%s.yaml validates with no errors and no warnings but at most two confusable pairs (TM1001)', async (name) => {
    const { diagnostics } = await validateCatalog([`catalogs/${name}.yaml`], { cwd: ROOT });
    expect(diagnostics.filter((d) => d.severity !== 'info' && d.code !== 'TM1001')).toEqual([]);
    expect(diagnostics.filter((d) => d.code === 'TM1001').length).toBeLessThanOrEqual(2);
  });

  it.each(SHIPPED)('%s.yaml runs offline: every tool has a mock handler, or code shipped next to it (a module, a plugin)', async (name) => {
    const { loaded } = await validateCatalog([`catalogs/${name}.yaml`], { cwd: ROOT });
    const shipped = (file: string) => file.startsWith(CATALOGS + '/');
    const offline = (t: (typeof loaded.catalog.tools)[number]) =>
      t.handler?.kind === 'mock' || (t.handler?.kind === 'module' && shipped(t.handler.file)) || (t.handler?.kind === 'plugin' && t.handler.specifier.startsWith('./plugins/') && shipped(t.handler.catalogFile));
    expect(loaded.catalog.tools.filter((t) => t.source.kind === 'catalog' && !offline(t)).map((t) => t.name)).toEqual([]);
  });

  it('coding shows a stateful module tool and a handler plugin', async () => {
    const { loaded } = await validateCatalog(['catalogs/coding.yaml'], { cwd: ROOT });
    expect(loaded.catalog.tools.find((t) => t.name === 'run_tests')).toMatchObject({ mode: 'stateful', handler: { kind: 'module' } });
    expect(loaded.catalog.tools.filter((t) => t.handler?.kind === 'plugin').map((t) => t.name)).toEqual(['save_note', 'read_notes']);
  });

  it('assistant and coding have 15+ tools with read, write and destructive effects', async () => {
    for (const name of ['assistant', 'coding']) {
      const { loaded } = await validateCatalog([`catalogs/${name}.yaml`], { cwd: ROOT });
      expect(loaded.catalog.tools.length).toBeGreaterThanOrEqual(15);
      expect(new Set(loaded.catalog.tools.map((t) => t.effect))).toEqual(new Set(['read', 'write', 'destructive']));
    }
  });

  it('coding runs shell and writes serially (a stateful tool\'s job outlives the turn and takes no lock)', async () => {
    const { loaded } = await validateCatalog(['catalogs/coding.yaml'], { cwd: ROOT });
    for (const tool of loaded.catalog.tools.filter((t) => t.mode !== 'stateful' && (t.category === 'shell' || (t.category === 'files' && t.effect !== 'read')))) {
      expect(tool.concurrency, tool.name).toBe('serial');
    }
  });

  it('enterprise has an exclusive take-control deep_research, a sub-agent and prompt contributions', async () => {
    const { loaded } = await validateCatalog(['catalogs/enterprise.yaml'], { cwd: ROOT });
    expect(loaded.catalog.tools.find((t) => t.name === 'deep_research')).toMatchObject({ exclusive: true, takesControl: true });
    expect(loaded.catalog.agents.size).toBeGreaterThan(0);
    expect(loaded.catalog.tools.filter((t) => Object.keys(t.prompts).length > 0).length).toBeGreaterThan(1);
  });

  it('large has 120+ tools over 10+ categories and the minimal, coding and full profiles', async () => {
    const { loaded } = await validateCatalog(['catalogs/large.yaml'], { cwd: ROOT });
    expect(loaded.catalog.tools.length).toBeGreaterThanOrEqual(120);
    expect(new Set(loaded.catalog.tools.map((t) => t.category)).size).toBeGreaterThanOrEqual(10);
    for (const profile of ['minimal', 'coding', 'full']) expect(loaded.catalog.profiles.has(profile), profile).toBe(true);
  });

  it('every shipped file validates against schema/catalog.schema.json on its own, as an editor would check it', () => {
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(catalogSchema());
    const files = [...SHIPPED.map((n) => `${n}.yaml`), ...['crm', 'billing', 'support', 'analytics', 'cloud', 'database', 'messaging', 'hr', 'monitoring', 'docs'].map((n) => `large/${n}.yaml`)];
    for (const file of files) {
      const text = readFileSync(join(CATALOGS, file), 'utf8');
      expect(text.split('\n')[0], file).toMatch(/^# yaml-language-server: \$schema=(\.\.\/)+schema\/catalog\.schema\.json$/);
      expect(validate(load(text)), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
