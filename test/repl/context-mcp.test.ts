// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogDir, NODE, scripted, SERVERS } from '../mcp/helpers.js';
import type { ModelServer } from '../helpers/model-server.js';
import { replTestbed, type Harness } from './harness.js';

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;
const flat = (h: Harness) => h.frame().replace(/\s+/g, ' ');

describe('/context', () => {
  it('a bar of the next request by part, each part with its tokens and share; the status line points to it', async () => {
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }]);
    const h = await repl({ columns: 80 });
    await h.waitFor(/next request [\d,]+ \(\/context\)/);
    await h.send('weather?');
    await h.idle();
    await h.send('/context');
    await h.waitFor('tools offered (7)');
    const screen = h.frame();
    expect(screen).toMatch(/context \(openai test-model\)\nthe next request before your message: [\d,]+ tokens/);
    expect(screen).toMatch(/\n[█▓▚▞░▒]{40,60}\n/);
    expect(screen).toMatch(/ {4}█ get_weather +\d+ +\d+%/);
    expect(screen).toMatch(/ {4}▚ tool_search \(meta-tool\) +\d+ +\d+%/);
    expect(screen).toMatch(/ {2}▒ history \(4 messages\) +[\d,]+ +\d+%/);
    expect(screen).toMatch(/deferred: 1 tool not sent \([\d,]+ tokens if they were\)/);
    const widths = h.frames().flatMap((f) => f.split('\n')).map((l) => stringWidth(l));
    expect(Math.max(...widths)).toBeLessThanOrEqual(80);
  });
});

describe('/mcp', () => {
  it('each server: up with its tools and their tokens, or failed with the end of its stderr; restart starts one again', async () => {
    const starts = join(mkdtempSync(join(tmpdir(), 'toolman-mcp-repl-')), 'starts');
    const { file } = catalogDir(
      `toolman: 1\nname: repl-mcp\nmcp_servers:\n  notes:\n${scripted('plain', `    env: { STARTS_FILE: ${JSON.stringify(starts)} }\n`)}  broken:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(SERVERS, 'exits-at-start.mjs'))}]\n`,
    );
    const h = await repl({ catalog: file, env: { STARTS_FILE: starts } });
    // The chat starts every server (to hear their tool changes): the broken one fails again meanwhile, as it did at load.
    const started = Date.now();
    while ((await h.manager.mcpServerStates()).some((s) => s.running === 'starting') && Date.now() - started < 8000) await new Promise((resolve) => setTimeout(resolve, 20));
    await h.send('/mcp');
    await h.waitFor('/mcp restart NAME stops a server');
    const screen = flat(h);
    expect(screen).toMatch(/notes +up · 4 tools \(4 offered now, [\d,]+ tokens\) · tools listed by the server/);
    expect(screen).toMatch(/broken +failed · 0 tools \(none offered now\) · no tools/);
    expect(screen).toContain('exited with code 3');
    expect(screen).toContain('fatal: cannot read config file /nonexistent/config.json');
    const before = readFileSync(starts, 'utf8').trim().split('\n').length;
    await h.send('/mcp restart notes');
    await h.waitFor('✓ MCP server notes is up again: 4 tools');
    expect(readFileSync(starts, 'utf8').trim().split('\n').length).toBe(before + 1);
    await h.send('/mcp restart broken');
    await h.waitFor('error: MCP server broken did not start again');
    await h.send('/mcp restart nope');
    await h.waitFor('error: no MCP server "nope" in the catalog');
  });
});

describe('/mcp and secrets', () => {
  it("a failed server's stderr is shown with the catalog's secrets redacted", async () => {
    const secret = 'leak-token-5c1f9e2b77';
    const { file } = catalogDir(
      `toolman: 1\nname: leaky\nmcp_servers:\n  leaky:\n    command: ${JSON.stringify(NODE)}\n    args: ["-e", "process.stderr.write('token is ' + process.env.LEAK + '\\\\n'); process.exit(2)"]\n    env: { LEAK: "\${env:LEAK_TOKEN}" }\n`,
    );
    const h = await repl({ catalog: file, env: { LEAK_TOKEN: secret } });
    const started = Date.now();
    while ((await h.manager.mcpServerStates()).some((s) => s.running === 'starting') && Date.now() - started < 8000) await new Promise((resolve) => setTimeout(resolve, 20));
    await h.send('/mcp');
    await h.waitFor('token is [redacted]');
    expect(h.frames().join('')).not.toContain(secret);
  });
});
