import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runBin, spawnBin } from '../helpers/cli.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { alive } from '../helpers/process-alive.js';

const EVERYTHING = join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');
const SERVERS = join(FIXTURES, 'mcp', 'servers');
const scripted = (mode: string) => [process.execPath, join(SERVERS, 'scripted-server.mjs'), mode];

describe('toolman mcp', () => {
  it('tools: a table with token costs per provider and lint findings', async () => {
    const run = await runBin(['mcp', 'tools', '--', EVERYTHING]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/│ name\s+│ effect │ openai │ anthropic │ gemini │ findings/);
    expect(run.stdout).toMatch(/│ get-sum\s+│ read\s+│ \d+/);
    expect(run.stdout).toContain('TM0304');
    expect(run.stdout).toMatch(/\d+ tools; definitions cost openai \d+, anthropic \d+, gemini \d+ tokens/);
  });

  it('tools --json: one document', async () => {
    const run = await runBin(['mcp', 'tools', '--json', '--', ...scripted('plain')]);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { tools: { name: string; effect: string; tokens: Record<string, number> }[] };
    expect(doc.tools.map((t) => t.name)).toEqual(['say', 'fail', 'wait', 'add_tool']);
    expect(doc.tools[0]).toMatchObject({ effect: 'read', tokens: { openai: expect.any(Number), anthropic: expect.any(Number), gemini: expect.any(Number) } });
  });

  it('tools: a server that exits at start is a failure with its stderr, exit 1', async () => {
    const run = await runBin(['mcp', 'tools', '--', process.execPath, join(SERVERS, 'exits-at-start.mjs')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('exited with code 3');
    expect(run.stderr).toContain('fatal: cannot read config file');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('tools without a server is a usage error', async () => {
    const run = await runBin(['mcp', 'tools']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('name the server: --url URL, or -- COMMAND ARGS...');
    const bad = await runBin(['mcp', 'tools', '--url', 'notaurl']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--url "notaurl" is not an http(s) URL');
  });

  it('tools on a hostile server: no escape reaches the output', async () => {
    const run = await runBin(['mcp', 'tools', '--', ...scripted('hostile')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(run.stdout).toContain('evilname');
  });

  it('call: a result, an error result (exit 1), and an unknown tool (exit 2)', async () => {
    const ok = await runBin(['mcp', 'call', 'get-sum', '--args', '{"a":4,"b":5}', '--', EVERYTHING]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('The sum of 4 and 5 is 9.');
    const failed = await runBin(['mcp', 'call', 'fail', '--json', '--', ...scripted('plain')]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).responses[0]).toMatchObject({ ok: false });
    expect(failed.stdout).toContain('the thing went wrong');
    const unknown = await runBin(['mcp', 'call', 'nope', '--', ...scripted('plain')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('the server has no tool "nope"');
  });

  it('call starts the server once: listed, checked and called on one connection', async () => {
    const starts = join(mkdtempSync(join(tmpdir(), 'toolman-mcp-call-')), 'starts');
    writeFileSync(starts, '');
    const run = await runBin(['mcp', 'call', 'say', '--args', '{"text":"hi"}', '--env', 'STARTS_FILE', '--', ...scripted('plain')], { env: { STARTS_FILE: starts } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('said: hi');
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('call refuses a tool whose definition toolman cannot use, saying why (exit 1)', async () => {
    const remote = await runBin(['mcp', 'call', 'remote_ref', '--', ...scripted('hostile')]);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('the server\'s tool "remote_ref" has a definition toolman cannot use: TM0305 parameters.properties.x.$ref');
    const deep = await runBin(['mcp', 'call', 'deep', '--', ...scripted('hostile')]);
    expect(deep.code).toBe(1);
    expect(deep.stderr).toContain('the server\'s tool "deep" cannot be called: skipped: "deep" nests deeper than 200 levels');
  });

  it('import --mcp: snapshots a server into a catalog that validates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-import-mcp-'));
    const run = await runBin(['import', '--mcp', '-o', 'everything.yaml', '--', EVERYTHING], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const yaml = readFileSync(join(dir, 'everything.yaml'), 'utf8');
    expect(yaml).toContain('- name: get-sum');
    expect(yaml).toContain('# import: readOnlyHint: true became effect: read');
    const validate = await runBin(['validate', 'everything.yaml'], { cwd: dir });
    expect(validate.code, validate.stdout).toBe(0);
  });
});

describe('a catalog with MCP servers from the CLI', () => {
  it('list, show, search, budget, format and validate use the cached list; call starts the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-cli-'));
    const starts = join(dir, 'starts');
    writeFileSync(starts, '');
    writeFileSync(
      join(dir, 'toolman.yaml'),
      `toolman: 1\nname: cli\nmcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(SERVERS, 'scripted-server.mjs'))}, plain]\n    env: { STARTS_FILE: "\${env:STARTS_FILE}" }\n    prefix: s_\n`,
    );
    const env = { TOOLMAN_CACHE_DIR: join(dir, 'cache'), XDG_STATE_HOME: join(dir, 'state'), STARTS_FILE: starts };
    const count = () => readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean).length;
    const list = await runBin(['list'], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/s_say .* mcp:s/);
    expect(count()).toBe(1);
    for (const args of [['list'], ['show', 's_say'], ['search', 'say text'], ['budget'], ['format', '-P', 'anthropic'], ['validate']]) {
      const run = await runBin(args, { cwd: dir, env });
      expect(run.code, `${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(0);
    }
    expect(count()).toBe(1);
    const call = await runBin(['call', 's_say', '--args', '{"text":"hi"}'], { cwd: dir, env });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('said: hi');
    expect(count()).toBe(2);
    const refreshed = await runBin(['--refresh', 'list'], { cwd: dir, env });
    expect(refreshed.code).toBe(0);
    expect(count()).toBe(3);
  });

  it('a server that fails is a warning; the rest of the catalog works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-cli-'));
    writeFileSync(
      join(dir, 'toolman.yaml'),
      `toolman: 1\nname: cli\ntools:\n  - name: local\n    description: A local tool that keeps working when a server fails.\n    handler: { mock: [{ result: fine }] }\nmcp_servers:\n  broken:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(SERVERS, 'exits-at-start.mjs'))}]\n`,
    );
    const call = await runBin(['call', 'local'], { cwd: dir });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('fine');
    expect(call.stderr).toContain('exited with code 3');
    const validate = await runBin(['validate'], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(/toolman\.yaml:8:3 warning TM0802 mcp server "broken": /);
  });

  it('Ctrl-C during a call cancels it, exits 130 and leaves no server running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-mcp-cli-'));
    const starts = join(dir, 'starts');
    writeFileSync(starts, '');
    writeFileSync(
      join(dir, 'toolman.yaml'),
      `toolman: 1\nname: cli\nmcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(join(SERVERS, 'scripted-server.mjs'))}, plain]\n    env: { STARTS_FILE: "\${env:STARTS_FILE}" }\n`,
    );
    const run = spawnBin(['call', 'wait', '--yes', '-v'], { cwd: dir, env: { STARTS_FILE: starts } });
    await run.waitFor(/progress started waiting/);
    const pid = Number(readFileSync(starts, 'utf8').trim());
    expect(pid).toBeGreaterThan(0);
    run.kill('SIGINT');
    const done = await run.done;
    expect(done.code).toBe(130);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3000 });
  });
});

describe('toolman mcp with a 2026-07-28 server (the v2 fixture)', () => {
  const MODERN = [process.execPath, join(SERVERS, 'modern-server.mjs'), 'stdio', '--modern-only'];

  it('lists and calls a server that speaks only 2026-07-28 (toolman on the v1 SDK failed: "Unsupported protocol version: 2025-11-25")', async () => {
    const tools = await runBin(['mcp', 'tools', '--json', '--', ...MODERN]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stderr).not.toMatch(/unsupported protocol version|protocol version is not supported/i);
    expect((JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('echo');
    const call = await runBin(['mcp', 'call', 'echo', '--args', '{"text":"hi"}', '--', ...MODERN]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('echo: hi');
  });

  it('--protocol legacy against a 2026-07-28-only server fails clearly; --protocol 2026-07-28 against a 2025 server too', async () => {
    const legacy = await runBin(['mcp', 'tools', '--protocol', 'legacy', '--', ...MODERN]);
    expect(legacy.code).toBe(1);
    expect(legacy.stderr).toContain('failed to start');
    const pinned = await runBin(['mcp', 'tools', '--protocol', '2026-07-28', '--', ...scripted('plain')]);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain('did not offer pinned protocol version 2026-07-28');
    const bad = await runBin(['mcp', 'tools', '--protocol', '2024', '--', ...scripted('plain')]);
    expect(bad.code).toBe(2);
  });

  it('answers a yes/no question during a call with --yes; without it (no terminal) the server is told nothing will be answered', async () => {
    const yes = await runBin(['mcp', 'call', 'delete_note', '--args', '{"id":"n1"}', '--yes', '--', ...MODERN]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toContain('deleted n1');
    const form = await runBin(['mcp', 'call', 'make_account', '--yes', '--', ...MODERN]);
    expect(form.code).toBe(1);
    expect(form.stderr).toContain('toolman: note: MCP server "server" asked "Account details": declined (--yes answers a yes/no question, or a form whose every field has a default; ask in `toolman chat`)');
    const defaults = await runBin(['mcp', 'call', 'set_prefs', '--yes', '--', ...MODERN]);
    expect(defaults.code, defaults.stderr).toBe(0);
    expect(defaults.stdout).toContain('prefs: {"theme":"dark","size":12,"sounds":false}');
    expect(defaults.stderr).toContain('accepted its defaults (--yes): theme="dark", size=12, sounds=false');
    const no = await runBin(['mcp', 'call', 'delete_note', '--args', '{"id":"n1"}', '--', ...MODERN]);
    expect(no.code).toBe(1);
    expect(no.stdout + no.stderr).toContain('the server needs to ask the user (elicitation) during the call, and this driver does not answer that');
  });

  it('keeps the good tools of a list that breaks the 2026-07-28 schema, naming each left out (TM0804)', async () => {
    const run = await runBin(['mcp', 'tools', '--json', '--', ...scripted('modern-hostile')]);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { tools: { name: string }[]; findings: { code: string; message: string }[] };
    expect(doc.tools.map((t) => t.name)).toEqual(['ok_tool', 'bad_icons', 'bad_header', 'odd_blocks']);
    expect(doc.findings.filter((f) => f.code === 'TM0804').map((f) => f.message)).toEqual([
      'mcp server "server": tool "no_type": left out: its inputSchema is not an object schema (type: object)',
      'mcp server "server": tool "string_hint": left out: its annotations are malformed (hints must be true or false)',
      'mcp server "server": tool "#5": left out: it has no name',
    ]);
  });
});
