import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinsFor } from '../../src/cli/preloaded-builtins.js';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { CATALOGS, ROOT } from '../helpers/paths.js';

// Node's own compiled code for its built-ins is refused once bin/toolman.js has set its V8 flags
// (their hash differs from the defaults it was made under), so a built-in first loaded after them
// is compiled from its source: bin loads what the command line will need first.

describe('builtinsFor: what a command line loads of Node, loaded before the V8 flags', () => {
  it('every run: tty, net, child_process; the tool runners for the commands that open tools; Node\'s fetch only where a request goes out', () => {
    const every = ['node:tty', 'node:net', 'node:child_process', 'node:process', 'node:util/types'];
    const tools = ['node:worker_threads', 'node:dns', 'node:perf_hooks'];
    expect(builtinsFor(['-c', 'c.yaml', 'format', '-P', 'openai'])).toEqual([...every, 'node:worker_threads', 'node:dns']);
    expect(builtinsFor(['diff', 'a.yaml', 'b.yaml'])).toEqual([...every, ...tools]);
    expect(builtinsFor(['call', 'x', '--args', '{}'])).toEqual([...every, ...tools]);
    expect(builtinsFor(['--version'])).toEqual(every);
    expect(builtinsFor(['validate', 'x.yaml'])).toEqual(every);
    expect(builtinsFor(['-c', 'chat', 'budget'])).toEqual([...every, ...tools]); // `chat` is the catalog here
    expect(builtinsFor(['chat', '--prompt', 'hi'])).toEqual([...every, ...tools, 'global:ReadableStream', 'global:Headers']);
    expect(builtinsFor(['chat', '--replay', 'r.jsonl'])).toEqual([...every, ...tools, 'global:ReadableStream']);
    expect(builtinsFor(['-c', 'c.yaml', 'test', 's.yaml'])).toEqual([...every, ...tools, 'global:ReadableStream', 'global:Headers']);
    expect(builtinsFor(['test', 's.yaml', '--replay', 'recordings'])).toEqual([...every, ...tools, 'global:ReadableStream']);
    expect(builtinsFor(['test', 's.yaml', '--coverage'])).toEqual([...every, ...tools, 'global:ReadableStream']);
    expect(builtinsFor(['test', 'merge', 'a.json'])).toEqual(every);
    expect(builtinsFor(['test', 'init'])).toEqual(every);
  });

  it('names only built-ins Node has, and globals it defines', () => {
    const load = createRequire(import.meta.url);
    const all = new Set(['budget', 'chat', 'test', 'format', 'diff'].flatMap((command) => builtinsFor([command])));
    for (const builtin of all) {
      if (builtin.startsWith('global:')) expect(typeof (globalThis as Record<string, unknown>)[builtin.slice(7)], builtin).toBe('function');
      else expect(load(builtin), builtin).toBeTruthy();
    }
  });
});

describe('bin/toolman.js loads them first: Node built-ins loaded after its flags', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  const folder = mkdtempSync(join(tmpdir(), 'toolman-builtins-'));
  /** Loaded with --require: at exit, the Node built-ins first loaded after bin set its first V8 flag. */
  const probe = join(folder, 'after-flags.cjs');
  writeFileSync(
    probe,
    `const v8 = require('node:v8'); const set = v8.setFlagsFromString; let at;
v8.setFlagsFromString = function (flag) { at ??= process.moduleLoadList.length; return set.call(this, flag); };
process.on('exit', () => process.stderr.write('\\nAFTER_FLAGS=' + JSON.stringify(process.moduleLoadList.slice(at).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))) + '\\n'));
`,
  );
  const afterFlags = (stderr: string) => JSON.parse(/AFTER_FLAGS=(.*)/.exec(stderr)![1]!) as string[];
  // Resolving a package's `exports` (re2js) loads Node's ES module resolver, which no public module exposes.
  const resolver = (name: string) => name.startsWith('internal/modules/esm/');

  it.each([
    ['--version', ['--version']],
    ['validate', ['validate', join(CATALOGS, 'assistant.yaml')]],
    ['budget', ['-c', join(CATALOGS, 'assistant.yaml'), 'budget', '--json']],
    ['format', ['-c', join(CATALOGS, 'assistant.yaml'), 'format', '--provider', 'openai']],
    ['diff', ['diff', join(CATALOGS, 'assistant.yaml'), join(CATALOGS, 'large.yaml'), '--json']],
    ['chat, live', ['-c', join(CATALOGS, 'assistant.yaml'), 'chat', '--prompt', 'What is on my calendar today?', '--json', '--no-transcript']],
    ['test --replay', ['-c', join(CATALOGS, 'assistant.yaml'), 'test', join(ROOT, 'suites', 'assistant.yaml'), '--replay', join(ROOT, 'suites', 'recordings'), '--json']],
  ])('%s', async (_label, args) => {
    server.script(() => ({ text: 'You have two meetings today.', usage: { input: 1200, output: 9 } }));
    const env = { NODE_OPTIONS: `--require ${probe}`, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` };
    const run = await runBin(args, { env });
    expect(run.code, run.stderr).toBeLessThan(2);
    expect(afterFlags(run.stderr).filter((name) => !resolver(name))).toEqual([]);
  });
});
