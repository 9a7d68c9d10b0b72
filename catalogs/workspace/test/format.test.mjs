import { test } from 'node:test';
import assert from 'node:assert/strict';
import { line } from '../src/format.mjs';

test('one line per tool', () => {
  assert.equal(line({ name: 'git_status', summary: 'Show changed files' }), 'git_status: Show changed files');
});

test('cuts long summaries', () => {
  assert.equal(line({ name: 'x', summary: 'a'.repeat(100) }, 10), 'x: aaaaaa…');
});
