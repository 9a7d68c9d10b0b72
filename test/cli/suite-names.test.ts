import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

describe('toolman test refuses a suite whose names are not in the catalog (the built binary)', () => {
  it('exit 2, every problem at file:line:column, before any run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-suite-names-'));
    const file = join(dir, 'typo.yaml');
    writeFileSync(file, `catalog: ${JSON.stringify(join(ROOT, 'catalogs', 'assistant.yaml'))}
cases:
  - name: a
    prompt: hi
    profile: nosuchprofile
    force: [serch_contacts]
    expect:
      not_called: [delete_calender_event]
`);
    const run = await runBin(['test', '--suite-catalog', file, '--replay', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:5:14 no profile named "nosuchprofile"`);
    expect(run.stderr).toContain(`${file}:6:13 no tool named "serch_contacts" in the catalog; did you mean "search_contacts"`);
    expect(run.stderr).toContain(`${file}:8:20 no tool named "delete_calender_event" in the catalog; did you mean "delete_calendar_event"`);
  });
});
