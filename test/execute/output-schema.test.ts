import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolRunner } from '../../src/execute/runner.js';
import { StructuredResult } from '../../src/execute/structured-result.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import { toMcpTool } from '../../src/serve/mcp-tool.js';
import { runBin } from '../helpers/cli.js';
import { BIN } from '../helpers/paths.js';
import { EVERYTHING } from '../mcp/helpers.js';

const managers: ToolManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function open(yaml: string): Promise<ToolManager> {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-output-'));
  writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1\nname: t\n${yaml}`);
  const manager = await ToolManager.open({ catalogs: ['toolman.yaml'], cwd: dir, env: { TOOLMAN_CACHE_DIR: 'off' }, requireValid: false });
  managers.push(manager);
  return manager;
}

async function callOnce(manager: ToolManager, name: string, args: Record<string, unknown> = {}, wrap?: ToolRunner<'mock'>) {
  const session = await manager.session(wrap ? { wrapRunners: (registry) => registry.with(wrap) } : {});
  const turn = await session.runTurn([{ id: 'c1', name, arguments: args }]);
  return turn.responses[0]!;
}

const numbers = `
  - name: numbers
    description: Returns a list of numbers, many of them, for testing truncation.
    max_result_tokens: 20
    output_schema: { type: array, items: { type: number } }
    handler:
      mock:
        - when: { broken: true }
          result: __BROKEN__
        - result: __VALID__
    parameters: { type: object, properties: { broken: { type: boolean, description: whether to break it } } }
`;

describe('results are checked against the output schema', () => {
  it('a result that matches passes; one that does not is an invalid_output error naming each place, for the model', async () => {
    const manager = await open(`tools:
  - name: get_weather
    description: Get the current weather for a city.
    parameters: { type: object, properties: { city: { type: string, description: city } } }
    output_schema:
      type: object
      properties:
        temp_c: { type: number }
        readings: { type: array, items: { type: object, properties: { id: { type: string } }, required: [id] } }
      required: [temp_c]
      additionalProperties: false
    handler:
      mock:
        - when: { city: Oslo }
          result: { temp_c: 3, readings: [{ id: a }] }
        - result: { temp_c: "{{args.city}}", readings: [{ id: 7 }, {}], extra: 1 }
`);
    const good = await callOnce(manager, 'get_weather', { city: 'Oslo' });
    expect(good).toMatchObject({ ok: true, error_kind: null });
    expect(JSON.parse(good.content)).toEqual({ temp_c: 3, readings: [{ id: 'a' }] });
    const bad = await callOnce(manager, 'get_weather', { city: 'Bergen' });
    expect(bad).toMatchObject({ ok: false, error_kind: 'invalid_output' });
    expect(bad.content).toBe(bad.error);
    expect(bad.error).toContain('get_weather returned a result that does not match its output schema, so the result was withheld');
    expect(bad.error).toContain('result.temp_c must be number (got "Bergen")');
    expect(bad.error).toContain('result.readings[0].id must be string (got 7)');
    expect(bad.error).toContain('missing required field "result.readings[1].id"');
    expect(bad.error).toContain('unknown field "extra" in the result');
    expect(bad.error).toContain('The tool failed, not your call');
  });

  it('before truncation: a valid result cut to its limit stays ok; an invalid item the cut would hide still fails', async () => {
    const valid = JSON.stringify(Array.from({ length: 500 }, (_, i) => i));
    const broken = JSON.stringify(Array.from({ length: 500 }, (_, i) => (i === 250 ? 'not a number' : i)));
    const manager = await open(`tools:${numbers.replace('__VALID__', valid).replace('__BROKEN__', broken)}`);
    const ok = await callOnce(manager, 'numbers');
    // Checked after the cut, the "… N more items" marker among the numbers would have failed it.
    expect(ok).toMatchObject({ ok: true, truncated: true, error_kind: null });
    expect(ok.content).toContain('more items');
    const bad = await callOnce(manager, 'numbers', { broken: true });
    // Checked after the cut, item 250 would be gone and the result would pass.
    expect(bad).toMatchObject({ ok: false, error_kind: 'invalid_output', truncated: false });
    expect(bad.error).toContain('result[250] must be number (got "not a number")');
  });

  it("a runner's structured value is what is checked, not the model's copy of it", async () => {
    const manager = await open(`tools:
  - name: structured
    description: Returns a structured value beside a text for the model.
    output_schema: { type: object, properties: { n: { type: integer } }, required: [n] }
    handler: { mock: [{ result: ignored }] }
`);
    const runner = (structured: Record<string, unknown>): ToolRunner<'mock'> => ({ kind: 'mock', run: async () => new StructuredResult('the text the model reads', structured) });
    expect(await callOnce(manager, 'structured', {}, runner({ n: 2 }))).toMatchObject({ ok: true, content: 'the text the model reads' });
    const bad = await callOnce(manager, 'structured', {}, runner({ n: 'two' }));
    expect(bad).toMatchObject({ ok: false, error_kind: 'invalid_output' });
    expect(bad.error).toContain('result.n must be integer (got "two")');
  });

  it('a text result for an object schema says the tool returned text', async () => {
    const manager = await open(`tools:
  - name: texty
    description: Returns text although it promises an object.
    output_schema: { type: object }
    handler: { mock: [{ result: "{\\"a\\": 1}" }] }
`);
    const bad = await callOnce(manager, 'texty');
    expect(bad.error).toContain('the result must be object');
    expect(bad.error).toContain('it returned text');
  });

  it('a background job is held to it too', async () => {
    const manager = await open(`tools:
  - name: slow
    description: Runs in the background and returns a broken result.
    mode: background
    output_schema: { type: object, required: [done] }
    handler: { mock: [{ result: { nope: 1 } }] }
`);
    const session = await manager.session();
    const started = (await session.runTurn([{ id: 'c1', name: 'slow', arguments: {} }])).responses[0]!;
    expect(started.ok).toBe(true);
    const jobId = started.job_id!;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = (await session.runTurn([{ id: 'c2', name: 'job_result', arguments: { job_id: jobId } }])).responses[0]!;
    expect(result.content).toContain('does not match its output schema');
  });

  it('serve advertises an object output schema and leaves out one MCP 2025-11-25 cannot take', async () => {
    const manager = await open(`tools:
  - name: obj
    description: Returns an object with a count in it.
    output_schema: { type: object, properties: { count: { type: integer } } }
    handler: { mock: [{ result: { count: 1 } }] }
  - name: arr
    description: Returns a list of names, for the array case.
    output_schema: { type: array, items: { type: string } }
    handler: { mock: [{ result: [a] }] }
`);
    expect(toMcpTool(manager.tool('obj')).outputSchema).toEqual({ type: 'object', properties: { count: { type: 'integer' } } });
    expect(toMcpTool(manager.tool('arr')).outputSchema).toBeUndefined();
  });
});

describe('an MCP server tool keeps its outputSchema, and its structuredContent is checked', () => {
  it('server-everything: get-structured-content passes; a schema given by an override to a text-only tool fails it', async () => {
    const manager = await open(`mcp_servers:
  everything:
    command: ${JSON.stringify(EVERYTHING)}
    include: [get-structured-content, get-sum]
overrides:
  - tools: [get-sum]
    set: { output_schema: { type: object, properties: { sum: { type: number } }, required: [sum] } }
`);
    const tool = manager.tool('get-structured-content');
    // Kept from the server, its draft-07 $schema normalised away as for parameters.
    expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['temperature', 'conditions', 'humidity'], additionalProperties: false });
    expect(tool.outputSchema).not.toHaveProperty('$schema');
    expect(toMcpTool(tool).outputSchema).toEqual(tool.outputSchema);
    const good = await callOnce(manager, 'get-structured-content', { location: 'Chicago' });
    expect(good, good.error ?? '').toMatchObject({ ok: true });
    const bad = await callOnce(manager, 'get-sum', { a: 1, b: 2 });
    expect(bad).toMatchObject({ ok: false, error_kind: 'invalid_output' });
    expect(bad.error).toContain('it returned text');
  }, 30_000);
});

describe('from the command line (the built binary)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-output-cli-'));
  writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1
name: weather
tools:
  - name: get_weather
    description: Get the current weather for a city, in degrees Celsius.
    parameters: { type: object, properties: { city: { type: string, description: The city } }, required: [city] }
    output_schema: { type: object, properties: { temp_c: { type: number } }, required: [temp_c] }
    handler:
      mock:
        - when: { city: Oslo }
          result: { temp_c: 3 }
        - result: { temp_c: "{{args.city}}" }
`);
  const env = { TOOLMAN_CACHE_DIR: 'off' };

  it('call: a result that breaks the schema is an invalid_output failure (exit 1)', async () => {
    const good = await runBin(['call', 'get_weather', '--args', '{"city": "Oslo"}', '--json'], { cwd: dir, env });
    expect(good.code, good.stderr).toBe(0);
    const bad = await runBin(['call', 'get_weather', '--args', '{"city": "Bergen"}', '--json'], { cwd: dir, env });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).responses[0]).toMatchObject({ ok: false, error_kind: 'invalid_output', error: expect.stringContaining('result.temp_c must be number (got "Bergen")') });
  }, 30_000);

  it('serve: an MCP client sees the outputSchema, and its SDK accepts the structured result it checks', async () => {
    const client = new Client({ name: 'output-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], cwd: dir, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'ignore' }));
    try {
      const [tool] = (await client.listTools()).tools;
      expect(tool!.outputSchema).toEqual({ type: 'object', properties: { temp_c: { type: 'number' } }, required: ['temp_c'] });
      // The SDK's callTool validates structuredContent against the advertised schema itself.
      const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      expect(result.structuredContent).toEqual({ temp_c: 3 });
      const refused = await client.callTool({ name: 'get_weather', arguments: { city: 'Bergen' } });
      expect(refused).toMatchObject({ isError: true, _meta: { 'toolman/error_kind': 'invalid_output' } });
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('a job tool (background or stateful) over serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolman-output-jobs-'));
  writeFileSync(join(dir, 'toolman.yaml'), `toolman: 1
name: jobs
defaults: { effect: read }
tools:
  - name: forecast_later
    description: Compute the forecast in the background and hand it over later.
    mode: background
    output_schema: { type: object, properties: { temp_c: { type: number } }, required: [temp_c] }
    handler: { mock: [{ result: { temp_c: 3 } }] }
  - name: forecast_hourly
    description: Compute the forecast hour by hour, one hour per yield.
    mode: stateful
    output_schema: { type: object, properties: { temp_c: { type: number } }, required: [temp_c] }
    handler: { mock: [{ yields: [{ hour: 1 }], result: { temp_c: 3 } }] }
`);

  it('is listed without outputSchema: its call answers with a job report, which the SDK would refuse against it', async () => {
    const client = new Client({ name: 'output-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], cwd: dir, env: { ...(process.env as Record<string, string>), TOOLMAN_CACHE_DIR: 'off' }, stderr: 'ignore' }));
    try {
      const tools = (await client.listTools()).tools;
      for (const name of ['forecast_later', 'forecast_hourly']) expect(tools.find((t) => t.name === name)!.outputSchema, name).toBeUndefined();
      // The SDK checks structuredContent against an advertised schema and throws when it does not match.
      for (const name of ['forecast_later', 'forecast_hourly']) expect(await client.callTool({ name, arguments: {} }), name).toMatchObject({ _meta: { 'toolman/job_id': expect.stringMatching(/^job_/) } });
    } finally {
      await client.close();
    }
  }, 30_000);
});
