import { test } from 'node:test';
import assert from 'node:assert/strict';
import { includes, toolNames } from '../src/catalog.mjs';

test('reads tool names', () => {
  assert.deepEqual(toolNames('tools:\n  - name: read_file\n  - name: git_status\n'), ['read_file', 'git_status']);
});

test('loads includes', () => {
  const found = includes('include: a.yaml\ninclude: b.yaml\n');
  assert.equal(found.length, 2, `expected 2 files, got ${found.length}`);
});
