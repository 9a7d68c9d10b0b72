import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { resolveProfile } from '../../src/select/resolve-profile.js';
import { selectTools, type Selection } from '../../src/select/select-tools.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/selection.yaml'], { cwd: ROOT });
const explain = (s: Selection) => Object.fromEntries(s.decisions.map((d) => [d.tool.name, `${d.state} ${d.step} ${d.rule}`]));

describe('selectTools', () => {
  it('full (the default without a default profile) offers every enabled tool except exclusive ones, then applies policies', () => {
    const selection = selectTools(catalog);
    expect(selection.profile.name).toBe('full');
    expect(explain(selection)).toEqual({
      read_file: 'active profile include: *',
      write_file: 'active profile include: *',
      delete_file: 'removed policy no-deletes: deny delete_file',
      git_log: 'active profile include: *',
      git_push: 'active profile include: *',
      admin_reset: 'active profile include: *',
      web_search: 'deferred defer defer_loading',
      deep_research: 'removed exclusive exclusive: offered only when forced',
      old_tool: 'removed enabled enabled: false',
      status: 'active profile include: *',
    });
    expect(selection.forced).toEqual([]);
  });

  it('applies a profile: include, exclude, defer by pattern, and always_load', () => {
    const selection = selectTools(catalog, { profile: 'coding' });
    expect(explain(selection)).toMatchObject({
      read_file: 'active profile include: category:files',
      git_log: 'deferred defer defer: category:git',
      git_push: 'deferred defer defer: category:git',
      // always_load decided, not the include: the defer pattern matched it (issue 19, item 5).
      status: 'active defer always_load (overrides defer: category:git)',
      admin_reset: 'removed profile exclude: admin_*',
      web_search: 'deferred defer defer_loading',
      delete_file: 'removed policy no-deletes: deny delete_file',
    });
    expect(selection.active.map((t) => t.name)).toEqual(['read_file', 'write_file', 'status']);
    expect(selection.deferred.map((t) => t.name)).toEqual(['git_log', 'git_push', 'web_search']);
  });

  it('inherits through extends and forces the profile\'s forced tools', () => {
    expect(resolveProfile(catalog, 'reviewer')).toMatchObject({ chain: ['reviewer', 'coding'], exclude: ['admin_*', 'effect:destructive'] });
    const selection = selectTools(catalog, { profile: 'reviewer' });
    expect(explain(selection).delete_file).toBe('removed profile exclude: effect:destructive');
    expect(explain(selection).read_file).toBe('active forced forced: read_file');
    expect(selection.forced.map((t) => t.name)).toEqual(['read_file']);
  });

  it('lets the user force a tool outside the profile, and a forced exclusive tool is the only one', () => {
    const forced = selectTools(catalog, { profile: 'coding', force: ['git_log'] });
    expect(explain(forced).git_log).toBe('active forced forced by the user');
    const exclusive = selectTools(catalog, { profile: 'coding', force: ['deep_research'] });
    expect(exclusive.exclusive?.name).toBe('deep_research');
    expect(exclusive.active.map((t) => t.name)).toEqual(['deep_research']);
    expect(exclusive.deferred).toEqual([]);
    expect(explain(exclusive).read_file).toBe('removed exclusive deep_research is exclusive');
  });

  it('never lets forcing override a policy or enabled: false', () => {
    expect(() => selectTools(catalog, { force: ['delete_file'] })).toThrow(/removed by policy no-deletes: deny delete_file/);
    expect(() => selectTools(catalog, { force: ['old_tool'] })).toThrow(/removed by enabled: false/);
    expect(() => selectTools(catalog, { force: ['read_fil'] })).toThrow(/no such tool; did you mean "read_file"/);
  });

  it('built-in minimal defers everything but always_load tools', () => {
    const selection = selectTools(catalog, { profile: 'minimal' });
    expect(selection.active.map((t) => t.name)).toEqual(['status']);
    expect(selection.deferred.length).toBe(6);
    expect(explain(selection).status).toBe('active defer always_load (overrides defer: *)');
  });

  it('explains unknown profiles and cycles', () => {
    expect(() => selectTools(catalog, { profile: 'codng' })).toThrow(/no profile named "codng"; did you mean "coding"/);
    const cyclic = loadCatalog(['test/fixtures/diagnostics/TM0602-profile-cycle.yaml'], { cwd: ROOT }).catalog;
    expect(() => selectTools(cyclic, { profile: 'a' })).toThrow(/cycle: a -> b -> a/);
  });

  it('is a pure function: the same request gives the same decisions', () => {
    expect(explain(selectTools(catalog, { profile: 'coding' }))).toEqual(explain(selectTools(catalog, { profile: 'coding' })));
  });
});
