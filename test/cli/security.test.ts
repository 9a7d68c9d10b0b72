import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, runMain, spawnBin } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';

const scripts = join(FIXTURES, 'security');
const node = JSON.stringify(process.execPath);
const script = (name: string) => JSON.stringify(join(scripts, name));
const env = { PATH: process.env.PATH ?? '' };

/** Writes a catalog into a fresh folder and returns its path. */
function catalog(tools: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-security-'));
  const file = join(dir, 'catalog.yaml');
  writeFileSync(file, `toolman: 1\nname: security\ndefaults: { effect: read, timeout_ms: 10000 }\ntools:\n${tools}`);
  return file;
}

const tool = (name: string, handler: string, parameters = '{ type: object, properties: { v: { type: string, description: A value. } } }', extra = '') =>
  `  - name: ${name}\n    description: The ${name} tool, which exists to test how toolman contains hostile input.\n    parameters: ${parameters}\n    handler: ${handler}\n${extra}`;

/** Processes whose command line contains `marker` (Linux: /proc). */
function running(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

const linux = process.platform === 'linux';
const waitUntil = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 50));
  return check();
};

describe('exec: the program is the author\'s, a value never becomes an option', () => {
  const file = catalog(
    [
      tool('plain', `{ exec: { argv: [${node}, ${script('print-args.mjs')}, "{{v}}"] } }`),
      tool('separated', `{ exec: { argv: [${node}, ${script('print-args.mjs')}, "--", "{{v}}"] } }`),
      tool('options', `{ exec: { argv: [${node}, ${script('print-args.mjs')}, "{{v}}"], allow_options: [v] } }`),
      tool('bytes', `{ exec: { argv: [${node}, -e, "process.stdout.write('é'.repeat(10))"], max_output_bytes: 5 } }`),
      tool('nowhere', `{ exec: { argv: [${node}, -e, "1"], cwd: ./missing-folder } }`),
    ].join(''),
  );

  it('refuses a value that would start an argument with "-" before "--", and says why', async () => {
    const run = await runMain(['-c', file, 'call', 'plain', '--args', '{"v": "--output=/tmp/toolman-pwned"}'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the value of "v" starts with "-", and as argument 2 of');
    expect(existsSync('/tmp/toolman-pwned')).toBe(false);
  });

  it('passes the same value after "--", and where the catalog allows options', async () => {
    for (const name of ['separated', 'options']) {
      const run = await runMain(['-c', file, 'call', name, '--args', '{"v": "--output=x"}', '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(JSON.parse(run.stdout).responses[0].content).stdout).toContain('--output=x');
    }
  });

  it('validate reports a template in argv[0] as an error and one that can start an argument as a warning', async () => {
    const bad = catalog(tool('pick', `{ exec: { argv: ["{{v}}", x] } }`) + tool('opt', `{ exec: { argv: [git, log, "{{v}}"] } }`));
    const run = await runMain(['validate', bad, '--json']);
    expect(run.code).toBe(1);
    const codes = (JSON.parse(run.stdout) as { diagnostics: { code: string; severity: string }[] }).diagnostics.map((d) => `${d.code} ${d.severity}`);
    // The two tools differ only by name, which TM1001 (confusable tools) rightly says too.
    expect(codes.filter((c) => c.startsWith('TM07'))).toEqual(['TM0708 error', 'TM0709 warning']);
  });

  it('counts max_output_bytes in bytes, never splitting a character', async () => {
    const run = await runMain(['-c', file, 'call', 'bytes', '--json'], { env });
    const result = JSON.parse(JSON.parse(run.stdout).responses[0].content) as { stdout: string; output_cut_at_bytes: number };
    expect(result.stdout).toBe('éé');
    expect(result.output_cut_at_bytes).toBe(5);
  });

  it('says a missing working directory is missing, not that the program is', async () => {
    const run = await runMain(['-c', file, 'call', 'nowhere'], { env });
    expect(run.stderr).toContain('its working directory ./missing-folder does not exist');
  });
});

describe.skipIf(!linux)('exec: every process toolman starts is gone when toolman is', () => {
  const tree = (name: string, mode: string, marker: string, extra = '') => tool(name, `{ exec: { argv: [${node}, ${script('spawn-tree.mjs')}, ${mode}, "${marker}"] } }`, undefined, extra);

  it('SIGTERM to `toolman call` kills the tool\'s process group', async () => {
    const marker = '987.101';
    const run = spawnBin(['-c', catalog(tree('waits', 'wait', marker)), 'call', 'waits']);
    await waitUntil(() => running(`sleep\u0000${marker}`) > 0, 5000);
    expect(running(`sleep\u0000${marker}`)).toBe(1);
    run.kill('SIGTERM');
    expect((await run.done).code).toBe(130);
    expect(await waitUntil(() => running(`sleep\u0000${marker}`) === 0)).toBe(true);
  });

  it('a program that exits leaving a child behind: the child is stopped, the call returns at once', async () => {
    const marker = '987.102';
    const started = Date.now();
    const run = await runBin(['-c', catalog(tree('leaves', 'leave', marker)), 'call', 'leaves']);
    expect(run.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await waitUntil(() => running(`sleep\u0000${marker}`) === 0)).toBe(true);
  });

  it('a child in its own session holding the output open: toolman still ends at the timeout, and the child with it', async () => {
    const marker = '987.103';
    const started = Date.now();
    const run = await runBin(['-c', catalog(tree('escapes', 'own-session', marker, '    timeout_ms: 500\n')), 'call', 'escapes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('did not finish within 500 ms');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await waitUntil(() => running(`sleep\u0000${marker}`) === 0)).toBe(true);
  });

  it('a daemon that detached into its own session after its parent exited is stopped when toolman ends', async () => {
    const marker = '987.105';
    const run = await runBin(['-c', catalog(tree('daemon', 'daemon', marker)), 'call', 'daemon']);
    expect(run.code).toBe(0);
    expect(await waitUntil(() => running(`sleep\u0000${marker}`) === 0)).toBe(true);
  });

  it('a background job\'s processes do not survive toolman', async () => {
    const marker = '987.104';
    const run = await runBin(['-c', catalog(tree('job', 'wait', marker, '    mode: background\n')), 'call', 'job']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('job_id');
    expect(await waitUntil(() => running(`sleep\u0000${marker}`) === 0)).toBe(true);
  });
});

describe('timeouts', () => {
  it('validate refuses timeouts and latencies past 2^31-1 ms (Node would fire them at once)', async () => {
    const file = catalog(tool('slow', '{ mock: [{ latency_ms: 3000000000, result: x }] }', undefined, '    timeout_ms: 3000000000\n'));
    const run = await runMain(['validate', file, '--json']);
    const found = (JSON.parse(run.stdout) as { diagnostics: { code: string; message: string }[] }).diagnostics;
    expect(found.map((d) => d.code)).toEqual(['TM0103', 'TM0103']);
    expect(found.map((d) => d.message).join(' ')).toContain('2147483647');
  });

  it('honours exec.timeout_ms over the tool\'s timeout', async () => {
    const file = catalog(tool('sleeper', `{ exec: { argv: [${node}, -e, "setTimeout(() => {}, 20000)"], timeout_ms: 300 } }`));
    const started = Date.now();
    const run = await runMain(['-c', file, 'call', 'sleeper'], { env });
    expect(run.stderr).toContain('did not finish within 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('http', () => {
  let first: Server;
  let second: Server;
  const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];
  let a = '';
  let b = '';
  const secret = 'sk-live-0123456789abcdef';

  beforeAll(async () => {
    const handler = (server: 'a' | 'b') => (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ path: `${server}${req.url}`, headers: req.headers });
      const url = req.url ?? '';
      if (url.startsWith('/to-other')) return void res.writeHead(302, { location: `${b}/landing` }).end();
      if (url.startsWith('/to-same')) return void res.writeHead(307, { location: `${a}/landing` }).end();
      if (url.startsWith('/big')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once('drain', pump);
          else res.end();
        };
        return pump();
      }
      if (url.startsWith('/error')) return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`${'e'.repeat(495)}${secret} was rejected`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: url }));
    };
    first = createServer(handler('a'));
    second = createServer(handler('b'));
    await Promise.all([new Promise<void>((r) => first.listen(0, '127.0.0.1', r)), new Promise<void>((r) => second.listen(0, '127.0.0.1', r))]);
    a = `http://127.0.0.1:${(first.address() as AddressInfo).port}`;
    b = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    first.close();
    second.close();
  });

  const http = (name: string, path: string, extra = '') => tool(name, `{ http: { url: "${a}${path}", headers: { x-api-key: "\${env:TOOLMAN_TEST_KEY}", authorization: "Bearer literal" }${extra} } }`);
  const secretEnv = { ...env, TOOLMAN_TEST_KEY: secret };

  it('a redirect to another origin drops the headers that carry secrets; one to the same origin keeps them', async () => {
    const file = catalog(http('other', '/to-other') + http('same', '/to-same'));
    seen.length = 0;
    expect((await runMain(['-c', file, 'call', 'other'], { env: secretEnv })).code).toBe(0);
    expect((await runMain(['-c', file, 'call', 'same'], { env: secretEnv })).code).toBe(0);
    const landing = seen.filter((s) => s.path.endsWith('/landing'));
    expect(landing.map((s) => [s.path[0], s.headers['x-api-key'] ?? null, s.headers.authorization ?? null])).toEqual([
      ['b', null, null],
      ['a', secret, 'Bearer literal'],
    ]);
  });

  it('caps the response body and says the size', async () => {
    const file = catalog(http('big', '/big', ', max_response_bytes: 1048576'));
    const run = await runMain(['-c', file, 'call', 'big'], { env: secretEnv });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/over max_response_bytes \(1048576\); stopped reading at \d+ bytes/);
  });

  it('redacts a secret that an error excerpt would cut in half', async () => {
    const file = catalog(http('fails', '/error'));
    const run = await runMain(['-c', file, 'call', 'fails', '--json'], { env: secretEnv });
    expect(run.stdout).not.toContain(secret.slice(0, 5));
    // Redacted first, then cut: the marker may be cut, the secret never shows.
    expect(run.stdout).toContain('e[reda');
  });

  it('keeps each path value one segment: ".." and "" are refused, "/" is encoded', async () => {
    const file = catalog(tool('item', `{ http: { url: "${a}/items/{{v}}/detail" } }`));
    const dots = await runMain(['-c', file, 'call', 'item', '--args', '{"v": ".."}'], { env });
    expect(dots.stderr).toContain('would make the URL path segment "{{v}}" ".."');
    const empty = await runMain(['-c', file, 'call', 'item', '--args', '{"v": ""}'], { env });
    expect(empty.stderr).toContain('empty');
    const slash = await runMain(['-c', file, 'call', 'item', '--args', '{"v": "a/../b"}', '--json'], { env });
    expect(JSON.parse(JSON.parse(slash.stdout).responses[0].content)).toEqual({ path: '/items/a%2F..%2Fb/detail' });
  });

  it('says why a request could not be sent, not just "fetch failed"', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const file = catalog(tool('closed', `{ http: { url: "http://127.0.0.1:${port}/x" } }`));
    const run = await runMain(['-c', file, 'call', 'closed'], { env });
    expect(run.stderr).toContain('ECONNREFUSED');
  });
});

describe('secrets never reach output', () => {
  const secret = 'pa$$ "wörd"/+=ÿ 42';
  const file = () =>
    catalog(
      tool('leak', `{ exec: { argv: [${node}, ${script('leak-secret.mjs')}, "{{v}}", "{{n}}"], env: [TOOLMAN_TEST_SECRET], max_output_bytes: 100 } }`, '{ type: object, properties: { v: { type: string, description: How. }, n: { type: string, description: Padding. } } }') +
        // Names the variable in another tool only: its value is still known as secret from the start.
        tool('uses_key', `{ http: { url: "https://example.invalid/?k=\${env:TOOLMAN_OTHER}" } }`),
    );

  it.each(['raw', 'json', 'url', 'base64'])('as %s', async (how) => {
    const run = await runMain(['-c', file(), 'call', 'leak', '--args', JSON.stringify({ v: how, n: '0' }), '--json'], { env: { ...env, TOOLMAN_TEST_SECRET: secret } });
    expect(run.code, run.stderr).toBe(0);
    const content = JSON.parse(run.stdout).responses[0].content as string;
    expect(content).toContain('[redacted]');
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(secret).toString('base64')]) expect(run.stdout).not.toContain(form);
  });

  it('when the output cap cuts through it, and on stderr of a failing program', async () => {
    const secretEnv = { ...env, TOOLMAN_TEST_SECRET: secret };
    const cut = await runMain(['-c', file(), 'call', 'leak', '--args', JSON.stringify({ v: 'raw', n: '95' }), '--json'], { env: secretEnv });
    expect(cut.stdout).not.toContain(secret.slice(0, 4));
    const failing = await runMain(['-c', file(), 'call', 'leak', '--args', JSON.stringify({ v: 'stderr', n: '0' })], { env: secretEnv });
    expect(failing.code).toBe(1);
    expect(failing.stderr).not.toContain(secret.slice(0, 4));
    expect(failing.stderr).toContain('[redacted]');
  });

  it('when only another tool names the variable (the value is known from the start)', async () => {
    const run = await runMain(['-c', file(), 'call', 'leak', '--args', JSON.stringify({ v: 'raw', n: '0' }), '--json'], { env: { ...env, TOOLMAN_TEST_SECRET: 'unrelated', TOOLMAN_OTHER: 'unrelated' } });
    expect(JSON.parse(run.stdout).responses[0].content).toContain('[redacted]');
  });
});

describe('own properties only', () => {
  const file = catalog(
    tool('ctor', '{ mock: [{ when: { constructor: x }, result: matched }, { result: fallback }] }', '{ type: object, properties: { constructor: { type: string, description: A name like an Object method. }, q: { type: string, description: Text. } } }'),
  );

  it.each(['constructor', 'toString', '__proto__', 'valueOf'])('-p %s is an unknown profile (exit 2), not an internal error', async (name) => {
    const run = await runMain(['-c', file, 'list', '-p', name]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no profile named "${name}"`);
  });

  it('a parameter named constructor does not break calls that omit it, or match by accident', async () => {
    const run = await runMain(['-c', file, 'call', 'ctor', '--args', '{"q": "a"}']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('fallback');
  });
});

describe('deep and pathological input is an error for that item only', () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  it('a batch with 5,000-deep arguments runs its valid calls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-deep-'));
    const batch = join(dir, 'calls.jsonl');
    writeFileSync(batch, `{"id": "ok", "name": "lookup", "arguments": {"key": "a"}}\n{"id": "deep", "name": "lookup", "arguments": ${deep(5000)}}\n`);
    const run = await runMain(['-c', 'test/fixtures/catalogs/executor.yaml', 'call', '--batch', batch, '--json']);
    const responses = (JSON.parse(run.stdout) as { responses: { id: string; ok: boolean; error: string | null }[] }).responses;
    expect(responses.map((r) => [r.id, r.ok])).toEqual([
      ['ok', true],
      ['deep', false],
    ]);
    expect(responses[1]!.error).toContain('nest deeper than 200 levels');
  });

  it('import skips a 20,000-deep schema with a reason and keeps the other tools', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-deep-'));
    const source = join(dir, 'tools.json');
    writeFileSync(source, `[{"name": "fine", "description": "A fine tool.", "parameters": {"type": "object"}}, {"name": "deep", "parameters": ${deep(20000)}}]`);
    const run = await runMain(['import', source, '--from', 'openai-functions', '-o', join(dir, 'out.yaml')]);
    expect(run.stderr).toContain('item 1: "deep" nests deeper than 200 levels');
    expect(run.stderr).not.toContain('internal error');
    expect(readFileSync(join(dir, 'out.yaml'), 'utf8')).toContain('name: fine');
  });

  it('tokens refuses deep messages with a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-deep-'));
    const request = join(dir, 'request.json');
    writeFileSync(request, `{"model": "gpt-4o", "messages": [{"role": "user", "content": ${deep(20000)}}]}`);
    const run = await runMain(['tokens', request, '--provider', 'openai']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nests deeper than 200 levels');
  });

  it('a pattern that backtracks exponentially in JavaScript validates arguments in linear time', async () => {
    const file = catalog(tool('redos', '{ mock: [{ result: ok }] }', '{ type: object, properties: { v: { type: string, pattern: "^(a+)+$", description: Letters. } } }'));
    const started = Date.now();
    const run = await runMain(['-c', file, 'call', 'redos', '--args', JSON.stringify({ v: `${'a'.repeat(5000)}!` })]);
    expect(run.stderr).toContain('must match pattern');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('terminal output', () => {
  it('a tool result cannot send control sequences to a terminal', async () => {
    const file = catalog(tool('ansi', '{ mock: [{ result: "\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2Jhello\\u001b[31m red\\r\\u009b" }] }'));
    const run = await runMain(['-c', file, 'call', 'ansi'], { tty: true });
    expect(run.stdout).toBe('hello red\n');
  });
});

describe('terminal filter', async () => {
  const { terminalSafe, plainText } = await import('../../src/cli/output/terminal-text.js');
  it('keeps colours, drops every other sequence and control character', () => {
    const text = '\u001b[1mbold\u001b[0m \u001b]8;;https://evil\u0007link\u001b]8;;\u0007 \u001b[2K\u001b[1Aup\rback\u0007\u009b31m end\n';
    expect(terminalSafe(text)).toBe('\u001b[1mbold\u001b[0m link upback31m end\n');
    expect(plainText(text)).toBe('bold link upback31m end\n');
  });

  it('drops bidi overrides and isolates, which would reorder what a reader sees', () => {
    expect(plainText('file\u202Etxt.exe \u2066a\u2069')).toBe('filetxt.exe a');
  });
});
