import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { alive } from '../helpers/process-alive.js';


describe.skipIf(process.platform !== 'linux')('a toolman that ends without closing its runners', () => {
  it('still takes its running programs with it (a closed pipe ends toolman at once)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-exec-exit-'));
    const pidFile = join(dir, 'pid');
    writeFileSync(
      join(dir, 'toolman.yaml'),
      `toolman: 1\ntools:\n  - name: linger\n    description: Writes its pid and stays.\n    effect: read\n    parameters: { type: object, properties: {} }\n    handler: { exec: { argv: [${JSON.stringify(process.execPath)}, -e, "require('fs').writeFileSync(${JSON.stringify(pidFile).replace(/"/g, "'")}, String(process.pid)); setTimeout(() => {}, 60000)"] } }\n`,
    );
    // A library user's process: starts the call, then exits while the program runs.
    const script = `
      import { ToolManager } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)};
      import { existsSync } from 'node:fs';
      const manager = await ToolManager.open({ catalogs: [${JSON.stringify(join(dir, 'toolman.yaml'))}] });
      const session = await manager.session();
      void session.runTurn([{ id: 'c1', name: 'linger', arguments: {} }]);
      while (!existsSync(${JSON.stringify(pidFile)})) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      process.exit(0);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const started = Date.now();
    while (alive(pid) && Date.now() - started < 3000) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid), 'the program outlived toolman').toBe(false);
  });
});
