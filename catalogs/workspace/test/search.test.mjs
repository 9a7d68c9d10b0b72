import { test } from 'node:test';
import assert from 'node:assert/strict';
import { search, words } from '../src/search.mjs';

test('splits words', () => {
  assert.deepEqual(words('Read a FILE, then grep'), ['read', 'a', 'file', 'then', 'grep']);
});

test('ranks by shared words', () => {
  const tools = [
    { name: 'grep_code', description: 'Search code for a pattern' },
    { name: 'read_file', description: 'Read a file' },
  ];
  assert.deepEqual(search(tools, 'read the file'), ['read_file']);
});
