import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutputPath } from '../../src/shared/output-file.js';

describe('checkOutputPath: a path toolman would refuse, refused before the work, and nothing changed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-output-check-'));
  const scope = { cwd: dir };

  it('accepts a new file in folders that do not exist yet, without making them', () => {
    expect(() => checkOutputPath(join(dir, 'a/b/report.xml'), '--junit', 'replace', scope)).not.toThrow();
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });

  it('refuses a link, a folder, a device, a file under a file, and an existing file for "new"', () => {
    writeFileSync(join(dir, 'target'), 'keep');
    symlinkSync(join(dir, 'target'), join(dir, 'link.xml'));
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'plain'), '');
    const before = readdirSync(dir).sort();
    const message = (file: string, mode: 'new' | 'replace' | 'append') => {
      try {
        checkOutputPath(file, '--junit', mode, scope);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message(join(dir, 'link.xml'), 'replace')).toMatch(/symbolic link/);
    expect(message(join(dir, 'folder'), 'replace')).toMatch(/it is a folder/);
    expect(message('/dev/null', 'append')).toMatch(/not a regular file/);
    expect(message(join(dir, 'plain', 'x.xml'), 'replace')).toMatch(/is not a folder/);
    expect(message(join(dir, 'plain'), 'new')).toMatch(/exists/);
    expect(message(join(dir, 'plain'), 'replace')).toBe('accepted');
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
