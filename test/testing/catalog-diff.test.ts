import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { diffCatalogs, type CatalogDiff } from '../../src/testing/catalog-diff.js';
import { parameterChanges } from '../../src/testing/parameter-changes.js';
import { runBin } from '../helpers/cli.js';

const OLD = `toolman: 1
name: shop
tools:
  - name: search_products
    description: Search the product catalog by words and return matching products with prices.
    parameters:
      type: object
      properties:
        query: { type: string, description: Words. }
        limit: { type: integer, minimum: 1, maximum: 50, description: How many. }
        sort: { type: string, enum: [price, rating, newest], description: Order. }
      required: [query]
    handler: { mock: [ { result: [] } ] }
  - name: get_order
    description: Get one order by its id, with items, status and delivery date.
    parameters: { type: object, properties: { order_id: { type: string, description: Id. } }, required: [order_id] }
    handler: { mock: [ { result: {} } ] }
  - name: cancel_order
    description: Cancel an order that has not shipped yet and refund the payment.
    effect: write
    parameters: { type: object, properties: { order_id: { type: string, description: Id. }, reason: { type: string, description: Why. } }, required: [order_id] }
    handler: { mock: [ { result: {} } ] }
  - name: list_customer_addresses
    description: List the saved delivery addresses of the customer with their labels.
    parameters: { type: object, properties: { customer_id: { type: string, description: Customer. } }, required: [customer_id] }
    handler: { mock: [ { result: [] } ] }
  - name: old_report
    description: The weekly sales report as a table.
    parameters: { type: object, properties: {} }
    handler: { mock: [ { result: {} } ] }
profiles:
  support:
    include: [get_order, cancel_order, list_customer_addresses]
  browse:
    include: [search_products]
`;

const NEW = `toolman: 1
name: shop
tools:
  - name: search_products
    description: Search the product catalog by words and return matching products with prices and stock.
    parameters:
      type: object
      properties:
        query: { type: string, description: Words., minLength: 2 }
        limit: { type: integer, minimum: 1, maximum: 100, description: How many. }
        sort: { type: string, enum: [price, rating, popular], description: Order. }
        in_stock: { type: boolean, description: Only in stock. }
      required: [query]
      additionalProperties: false
    handler: { mock: [ { result: [] } ] }
  - name: fetch_order
    aliases: [get_order]
    description: Get one order by its id, with items, status and delivery date.
    parameters: { type: object, properties: { order_id: { type: string, description: Id. } }, required: [order_id] }
    handler: { mock: [ { result: {} } ] }
  - name: cancel_order
    description: Cancel an order that has not shipped yet and refund the payment.
    effect: destructive
    defer_loading: true
    summary: Cancel an unshipped order
    parameters: { type: object, properties: { order_id: { type: string, description: Id. }, reason: { type: string, description: Why. } }, required: [order_id, reason] }
    handler: { mock: [ { result: {} } ] }
  - name: list_delivery_addresses
    description: List the saved delivery addresses of the customer with their labels.
    parameters: { type: object, properties: { customer_id: { type: string, description: Customer. } }, required: [customer_id] }
    handler: { mock: [ { result: [] } ] }
  - name: track_parcel
    description: Track a parcel by its tracking number and return the carrier's latest status.
    parameters: { type: object, properties: { tracking_number: { type: string, description: Tracking number. } }, required: [tracking_number] }
    handler: { mock: [ { result: {} } ] }
  - name: short
    description: Hi.
    parameters: { type: object, properties: {} }
    handler: { mock: [ { result: {} } ] }
profiles:
  support:
    include: [fetch_order, cancel_order, list_delivery_addresses, track_parcel]
  sales:
    include: [search_products]
`;

let dir: string;
let diff: CatalogDiff;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolman-diff-'));
  writeFileSync(join(dir, 'old.yaml'), OLD);
  writeFileSync(join(dir, 'new.yaml'), NEW);
  const [a, b] = await Promise.all([ToolManager.open({ catalogs: ['old.yaml'], cwd: dir }), ToolManager.open({ catalogs: ['new.yaml'], cwd: dir })]);
  diff = await diffCatalogs(a, b);
  await Promise.all([a.close(), b.close()]);
});

describe('toolman diff: each kind of change', () => {
  it('added, removed, renamed by alias and by similarity', () => {
    expect(diff.added.map((t) => t.name)).toEqual(['track_parcel', 'short']);
    expect(diff.removed.map((t) => t.name)).toEqual(['old_report']);
    expect(diff.renamed).toEqual([
      { from: 'get_order', to: 'fetch_order', by: 'alias', score: 1 },
      { from: 'list_customer_addresses', to: 'list_delivery_addresses', by: 'similarity', score: expect.any(Number) },
    ]);
    expect(diff.renamed[1]!.score).toBeGreaterThanOrEqual(0.6);
    expect(diff.breaking).toBe(true);
  });

  it('parameters: breaking and not', () => {
    const search = diff.changed.find((c) => c.tool === 'search_products')!;
    expect(search.description).toBeDefined();
    expect(search.parameters.map((p) => `${p.breaking ? 'B' : '-'} ${p.path}: ${p.change}`)).toEqual([
      'B (root): additionalProperties closed: unknown keys are now refused',
      'B query: minLength added: 2',
      '- limit: maximum 50 → 100',
      'B sort: enum values removed: "newest"',
      '- sort: enum values added: "popular"',
      '- in_stock: optional property added',
    ]);
    const cancel = diff.changed.find((c) => c.tool === 'cancel_order')!;
    expect(cancel.parameters).toEqual([{ path: 'reason', breaking: true, change: 'now required' }]);
    expect(cancel.flags).toEqual([
      { field: 'effect', before: 'write', after: 'destructive' },
      { field: 'defer_loading', before: false, after: true },
    ]);
    expect(cancel.breaking).toBe(true);
    expect(diff.changed.find((c) => c.tool === 'fetch_order')).toMatchObject({ was: 'get_order', breaking: true, parameters: [] });
  });

  it('schema changes one by one', () => {
    const s = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: props, ...extra });
    expect(parameterChanges(s({ n: { type: 'integer' } }), s({ n: { type: 'number' } }))).toEqual([{ path: 'n', breaking: false, change: 'type integer → number' }]);
    expect(parameterChanges(s({ n: { type: 'number' } }), s({ n: { type: 'string' } }))[0]!.breaking).toBe(true);
    expect(parameterChanges(s({ a: { type: 'string' } }, { required: ['a'] }), s({}))).toEqual([{ path: 'a', breaking: true, change: 'required property removed' }]);
    expect(parameterChanges(s({ a: { type: 'string' } }, { required: ['a'] }), s({ a: { type: 'string' } }))).toEqual([{ path: 'a', breaking: false, change: 'now optional' }]);
    expect(parameterChanges(s({}), s({ a: { type: 'string' } }, { required: ['a'] }))).toEqual([{ path: 'a', breaking: true, change: 'required property added' }]);
    expect(parameterChanges(s({ tags: { type: 'array', items: { type: 'string', maxLength: 20 } } }), s({ tags: { type: 'array', items: { type: 'string', maxLength: 10 } } }))).toEqual([{ path: 'tags[]', breaking: true, change: 'maxLength 20 → 10' }]);
    expect(parameterChanges(s({ o: { type: 'object', properties: { x: { type: 'string' } } } }), s({ o: { type: 'object', properties: { x: { type: 'string', pattern: '^a' } } } }))).toEqual([{ path: 'o.x', breaking: true, change: 'pattern added: ^a' }]);
    expect(parameterChanges(s({ a: { type: 'string' } }), s({ a: { type: 'string' } }))).toEqual([]);
  });

  it('breaking changes that are easy to miss, defaults, and keywords toolman does not interpret', () => {
    const one = (a: Record<string, unknown>, b: Record<string, unknown>) => parameterChanges({ type: 'object', properties: { p: a } }, { type: 'object', properties: { p: b } });
    const breaking = (a: Record<string, unknown>, b: Record<string, unknown>) => one(a, b).filter((c) => c.breaking).map((c) => c.change);
    expect(breaking({ type: 'string' }, { type: 'string', const: 'x' })).toEqual(['now limited to one value ("x")']);
    expect(breaking({ type: 'number' }, { type: 'number', multipleOf: 5 })).toEqual(['multipleOf added: 5']);
    expect(breaking({ type: 'number', multipleOf: 5 }, { type: 'number', multipleOf: 10 })).toEqual(['multipleOf 5 → 10']);
    expect(breaking({ type: 'number', multipleOf: 10 }, { type: 'number', multipleOf: 5 })).toEqual([]);
    expect(breaking({ type: 'string', enum: ['low', 'high'] }, { anyOf: [{ enum: ['low'] }] })).toEqual(['enum values removed: "high"']);
    expect(breaking({ type: 'string', enum: ['low'] }, { type: 'string', anyOf: [{ enum: ['low'] }, { const: 'high' }] })).toEqual([]);
    expect(breaking({}, { type: 'string' })).toEqual(['type added: string (any type was accepted)']);
    expect(breaking({ type: 'string' }, { type: 'string', anyOf: [{ minLength: 2 }, { pattern: '^a' }] })).toEqual([expect.stringMatching(/^anyOf added \(possibly breaking/)]);
    expect(breaking({ type: 'string', oneOf: [{ minLength: 2 }] }, { type: 'string', oneOf: [{ minLength: 3 }] })).toEqual([expect.stringMatching(/^oneOf changed \(possibly breaking/)]);
    expect(breaking({ type: 'string' }, { type: 'string', allOf: [{ minLength: 2 }] })).toEqual([expect.stringMatching(/^allOf added/)]);
    expect(breaking({ type: 'string' }, { type: 'string', not: { const: 'x' } })).toEqual([expect.stringMatching(/^not added/)]);
    expect(breaking({ type: 'array' }, { type: 'array', uniqueItems: true })).toEqual([expect.stringMatching(/^uniqueItems added/)]);
    expect(breaking({ type: 'array', uniqueItems: true }, { type: 'array' })).toEqual([]);
    expect(breaking({ type: 'array', prefixItems: [{ type: 'string' }] }, { type: 'array', prefixItems: [{ type: 'number' }] })).toEqual(['type string → number']);
    expect(one({ type: 'array', items: [{ type: 'string' }] }, { type: 'array', items: [{ type: 'string' }, { type: 'number' }] })).toEqual([{ path: 'p', breaking: true, change: 'tuple items 1 → 2 positions (possibly breaking)' }]);
    expect(one({ type: 'string', default: 'a' }, { type: 'string', default: 'b' })).toEqual([{ path: 'p', breaking: false, change: 'default "a" → "b"' }]);
    expect(one({ type: 'string' }, { type: 'string', contentMediaType: 'text/html' })).toEqual([{ path: 'p', breaking: true, change: 'contentMediaType added (possibly breaking: toolman does not interpret "contentMediaType")' }]);
    expect(one({ type: 'string', title: 'a' }, { type: 'string', title: 'b' })).toEqual([{ path: 'p', breaking: false, change: 'title changed' }]);
  });

  it('tokens per provider, selection per profile, new lint findings', () => {
    expect(diff.tokens.map((t) => t.provider)).toEqual(['openai', 'anthropic', 'gemini']);
    for (const t of diff.tokens) expect(t.after.eager).toBeGreaterThan(t.before.eager);
    const byProfile = Object.fromEntries(diff.selection.map((s) => [s.profile, s]));
    expect(byProfile.browse!.status).toBe('removed');
    expect(byProfile.sales!.status).toBe('added');
    expect(byProfile.support).toMatchObject({ status: 'changed', active_added: ['fetch_order', 'list_delivery_addresses', 'track_parcel'], active_removed: ['cancel_order', 'get_order', 'list_customer_addresses'], deferred_added: ['cancel_order'] });
    expect(diff.lint.added.map((d) => d.code)).toContain('TM0205');
    expect(diff.lint.added.every((d) => d.file.endsWith('new.yaml'))).toBe(true);
  });
});

describe('toolman diff (the built binary)', () => {
  it('text, JSON and Markdown; --strict exits 1 on breaking changes; no change is no change', async () => {
    const text = await runBin(['diff', join(dir, 'old.yaml'), join(dir, 'new.yaml')]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('get_order → fetch_order (the new tool lists the old name as an alias)');
    // A breaking entry says why, a rename too.
    expect(text.stdout).toContain('breaking: renamed: models are offered fetch_order, not get_order (toolman still runs calls to get_order: an alias)');
    expect(text.stdout).toContain('breaking: renamed: models are offered list_delivery_addresses, not list_customer_addresses\n');
    const md = await runBin(['diff', join(dir, 'old.yaml'), join(dir, 'new.yaml'), '--format', 'markdown']);
    expect(md.stdout).toMatch(/^## toolman diff: shop → shop/);
    expect(md.stdout).toContain('| provider | eager before |');
    expect(md.stdout).toContain('- `sort` enum values added');
    const json = JSON.parse((await runBin(['diff', join(dir, 'old.yaml'), join(dir, 'new.yaml'), '--json'])).stdout);
    expect(json.breaking).toBe(true);
    expect((await runBin(['diff', join(dir, 'old.yaml'), join(dir, 'new.yaml'), '--strict'])).code).toBe(1);
    const same = JSON.parse((await runBin(['diff', join(dir, 'old.yaml'), join(dir, 'old.yaml'), '--json', '--strict'])).stdout);
    expect([same.added, same.removed, same.renamed, same.changed, same.lint.added]).toEqual([[], [], [], [], []]);
  });
});
