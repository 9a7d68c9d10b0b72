import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';
import { startFakeProvider } from '../helpers/fake-provider.js';
import { CHECKERS } from '../providers/checkers.js';

const large = ['--catalog', 'catalogs/large.yaml'];
const budget = ['--catalog', 'test/fixtures/catalogs/budget.yaml'];

describe('toolman format', () => {
  it('prints exactly the provider fragment on stdout and warnings on stderr', async () => {
    const run = await runBin([...large, 'format', '--provider', 'openai', '--profile', 'full', '--strict']);
    expect(run.code).toBe(0);
    const payload = JSON.parse(run.stdout);
    expect(Object.keys(payload).sort()).toEqual(['messages', 'tools']);
    expect(CHECKERS.openai(payload)).toEqual([]);
    expect(run.stderr).toMatch(/user-turn prompt contributions/);
    const open = await runBin(['--catalog', 'test/fixtures/diagnostics/TM0402-openai-strict-impossible.yaml', 'format', '-P', 'openai', '--strict']);
    expect(open.stderr).toMatch(/warning: set_labels: sent non-strict: an object allows arbitrary keys/);
    expect(JSON.parse(open.stdout).tools[0].function.strict).toBe(false);
  });

  it.each(['openai', 'openai-responses', 'anthropic', 'gemini'] as const)('%s output passes that provider\'s checks', async (provider) => {
    const run = await runMain([...large, 'format', '-P', provider, '-p', 'coding', '--force', 'git_log']);
    expect(CHECKERS[provider](JSON.parse(run.stdout))).toEqual([]);
  });

  it('formats single tools with --tool and explains unknown ones', async () => {
    const run = await runMain([...large, 'format', '-P', 'anthropic', '--tool', 'read_file']);
    expect(JSON.parse(run.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['read_file']);
    const unknown = await runBin([...large, 'format', '-P', 'anthropic', '--tool', 'read_fil']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean "read_file"/);
  });

  it('--all-providers lists what each provider changes per tool', async () => {
    const run = await runMain([...large, 'format', '--all-providers', '-p', 'coding', '--strict', '--json']);
    const doc = JSON.parse(run.stdout);
    const readFile = doc.tools.find((t: { name: string }) => t.name === 'read_file');
    expect(readFile.providers.openai.changes).toContain('strict: optional properties made required and nullable');
    expect(readFile.providers.gemini.changes).toContain('removed additionalProperties');
    const text = await runMain([...large, 'format', '--all-providers', '-p', 'coding']);
    expect(text.stdout).toMatch(/│ tool\s+│ openai\s+│ openai-responses\s+│ anthropic\s+│ gemini/);
  });

  it('--search-mode discover offers discover_tools, get_tool_schema and invoke_tool instead of tool_search', async () => {
    const run = await runMain([...large, 'format', '-P', 'anthropic', '-p', 'minimal', '--search-mode', 'discover']);
    const names = JSON.parse(run.stdout).tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['discover_tools', 'get_tool_schema', 'invoke_tool']));
    expect(names).not.toContain('tool_search');
  });

  it('warns about requests over a provider\'s tool limit, and about everything validate says of the tools sent', async () => {
    const over = ['--catalog', 'test/fixtures/diagnostics/TM0405-tool-count-over-limit.yaml', 'format', '-P', 'openai'];
    const text = await runBin(over);
    expect(text.code).toBe(0);
    // Said once: the formatter's warning, not also validate's TM0405 for the same limit.
    expect(text.stderr).toBe('warning: 130 functions in one request; Chat Completions takes at most 128 (defer some tools behind tool_search)\n');
    const json = JSON.parse((await runMain([...over, '--json'])).stdout);
    expect(json.warnings.filter((w: { code?: string }) => w.code === 'TM0405')).toHaveLength(1);
    // Validate's finding still shows where the request itself is within the limit but the profile is not.
    const gemini = await runMain(['--catalog', 'test/fixtures/catalogs/provider-rules.yaml', 'format', '-P', 'gemini']);
    expect(gemini.stderr).toBe(
      'warning: build_tree: not sent: $ref "#/$defs/folder" is recursive; Gemini\'s schema subset has no references (use --gemini-json-schema to send it as parametersJsonSchema)\n' +
        '✖ 1 tool not sent to gemini: build_tree ($ref "#/$defs/folder" is recursive; Gemini\'s schema subset has no references)\n',
    );
    expect(gemini.code).toBe(1);
  });

  it('shows only the findings about the provider asked for, each with its own severity word, once', async () => {
    // OpenAI Chat's tool limit is not Anthropic's or Gemini's concern.
    for (const provider of ['anthropic', 'gemini', 'openai-responses']) {
      const run = await runBin(['--catalog', 'test/fixtures/diagnostics/TM0405-tool-count-over-limit.yaml', 'format', '-P', provider]);
      expect(run.stderr, provider).not.toMatch(/Chat Completions|TM0405/);
    }
    // OpenAI strict findings (TM0401, TM0402) are not Anthropic's: its own converter warns.
    const anthropic = await runBin(['--catalog', 'test/fixtures/catalogs/schema-shapes.yaml', 'format', '-P', 'anthropic', '--strict']);
    expect(anthropic.stderr).not.toMatch(/OpenAI|TM040/);
    // (The fixture's tools inherit effect: read, which three of them contradict: TM1206, not a provider finding.)
    expect(anthropic.stderr.split('\n').filter((l) => l && !l.includes(' TM1206 ')).map((l) => l.split(':')[0])).toEqual(['warning', 'warning', 'warning']);
    // Infos are infos.
    const lossy = await runBin([...large, 'format', '-P', 'openai', '--strict', '--tool', 'git_commit']);
    expect(lossy.stderr).toBe('info: catalogs/coding.yaml:334:34 TM0401 tools[14] "git_commit": OpenAI strict mode does not support "minLength"; the formatter will move these constraints into the description\n');
    // A tool that cannot be strict is said once (the formatter's warning, with the place), not also as TM0402.
    const impossible = await runBin(['--catalog', 'test/fixtures/diagnostics/TM0402-openai-strict-impossible.yaml', 'format', '-P', 'openai', '--strict']);
    expect(impossible.stderr).toBe('warning: set_labels: sent non-strict: an object allows arbitrary keys (additionalProperties); strict mode needs every key declared (at parameters.labels.additionalProperties)\n');
    const json = JSON.parse((await runMain(['--catalog', 'test/fixtures/diagnostics/TM0402-openai-strict-impossible.yaml', 'format', '-P', 'openai', '--strict', '--json'])).stdout);
    expect(json.warnings).toEqual([{ tool: 'set_labels', code: 'TM0402', message: expect.stringMatching(/^set_labels: sent non-strict/) }]);
  });

  it('--cache-control says it has no effect for a provider other than anthropic', async () => {
    for (const provider of ['openai', 'openai-responses', 'gemini']) {
      const run = await runBin([...large, 'format', '-P', provider, '-p', 'coding', '--cache-control']);
      expect(run.stderr, provider).toMatch(new RegExp(`^warning: --cache-control has no effect for ${provider}: cache_control breakpoints are Anthropic's`, 'm'));
      expect(run.stdout).not.toMatch(/cache_control/);
    }
    const anthropic = await runBin([...large, 'format', '-P', 'anthropic', '-p', 'coding', '--cache-control']);
    expect(anthropic.stderr).not.toMatch(/no effect/);
    expect(anthropic.stdout).toMatch(/"cache_control"/);
  });

  it('anthropic --native-search with --cache-control never puts the breakpoint on a deferred tool', async () => {
    const run = await runMain(['--catalog', 'catalogs/large.yaml', 'format', '-P', 'anthropic', '-p', 'minimal', '--native-search', 'bm25', '--cache-control']);
    const tools = JSON.parse(run.stdout).tools as { defer_loading?: boolean; cache_control?: unknown; type?: string }[];
    expect(tools.filter((tool) => tool.cache_control).map((tool) => tool.type)).toEqual(['tool_search_tool_bm25_20251119']);
    expect(tools.filter((tool) => tool.defer_loading && tool.cache_control)).toEqual([]);
  });

  it('needs a provider', async () => {
    const run = await runBin([...large, 'format']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/name a provider with --provider/);
  });
});

describe('toolman budget', () => {
  it('prints the documented JSON and exits 1 over the definitions budget, naming tools to defer', async () => {
    const run = await runBin([...budget, 'budget', '--profile', 'eager', '--json']);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    // A `format` keyword is outside the constructs the cookbook's rule was measured on.
    expect(doc).toMatchObject({ provider: 'openai', model: 'gpt-4o', estimate: true, estimate_reasons: ['"format"'], budget: { definitions: 150, ok: false } });
    expect(doc.tools[0]).toEqual({ name: 'search_orders', tokens: expect.any(Number), exact: false, estimate_reasons: ['"format"'], share_pct: expect.any(Number), deferred: false, step: 'profile', rule: 'include: *' });
    expect(doc.totals).toMatchObject({ eager: expect.any(Number), deferred: expect.any(Number), saving_pct: expect.any(Number) });
    expect(doc.budget.suggest_defer[0]).toBe('search_orders');
    expect(doc.budget.suggest_defer).not.toContain('ping'); // always_load
  });

  it('fits with defer: auto, keeping always_load tools; list --explain shows the decision', async () => {
    const run = await runBin([...budget, 'budget', '--profile', 'auto', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.budget.ok).toBe(true);
    expect(doc.tools.filter((t: { deferred: boolean }) => !t.deferred).map((t: { name: string }) => t.name)).toEqual(['ping']);
    const explain = await runMain([...budget, 'list', '--profile', 'auto', '--explain', '--json']);
    expect(JSON.parse(explain.stdout).tools).toContainEqual({ name: 'search_orders', state: 'deferred', step: 'defer', rule: 'defer: auto (budget 150)' });
    const flag = await runMain([...budget, 'budget', '--profile', 'eager', '--defer-auto']);
    expect(flag.code).toBe(0);
  });

  it('saves at least 85% of definition tokens on large.yaml with deferral (minimal profile)', async () => {
    for (const provider of ['openai', 'anthropic', 'gemini']) {
      const doc = JSON.parse((await runMain([...large, 'budget', '--profile', 'minimal', '-P', provider, '--json'])).stdout);
      expect(doc.totals.saving_pct, provider).toBeGreaterThanOrEqual(85);
      expect(doc.estimate).toBe(true);
      if (provider === 'openai') expect(doc.estimate_reasons).not.toContain('no public tokenizer for current Claude models');
    }
  });

  it('agrees with tokens on the same payload: the same total, the same verdict on exactness, the same reasons', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-agree-'));
    for (const [catalog, model] of [['test/fixtures/catalogs/budget.yaml', 'gpt-4o'], ['test/fixtures/catalogs/budget.yaml', 'gpt-4.1'], ['test/fixtures/catalogs/schema-shapes.yaml', 'gpt-4o']] as const) {
      const doc = JSON.parse((await runMain(['--catalog', catalog, 'budget', '-P', 'openai', '--model', model, '--json'])).stdout);
      const payload = JSON.parse((await runMain(['--catalog', catalog, 'format', '-P', 'openai'])).stdout);
      const file = join(dir, `${model}.json`);
      writeFileSync(file, JSON.stringify({ model, ...payload }));
      const counted = JSON.parse((await runMain(['tokens', file, '--json'])).stdout);
      expect(counted.breakdown.tools, `${catalog} ${model}`).toBe(doc.totals.eager - doc.totals.system_eager);
      expect(counted.estimate).toBe(doc.estimate);
      expect([...counted.reasons].sort()).toEqual([...doc.estimate_reasons].sort());
    }
    const unmeasured = JSON.parse((await runMain([...budget, 'budget', '-p', 'eager', '--model', 'gpt-4.1', '--json'])).stdout);
    expect(unmeasured.estimate_reasons).toContain('model gpt-4.1 is not one the counting rules were measured on');
  });

  it('prints a table, totals and the budget verdict', async () => {
    const run = await runMain([...budget, 'budget', '--profile', 'eager']);
    expect(run.stdout).toMatch(/│ search_orders\s+│ \d+\s+│ [\d.]+%\s+│ active/);
    expect(run.stdout).toMatch(/eager \(every selected tool up front\): \d+ tokens/);
    expect(run.stdout).toMatch(/✖ \d+ tokens over the definitions budget of 150/);
    expect(run.stdout).toMatch(/defer these to fit \(costliest first\): search_orders/);
  });

  it('says when no deferral can fit the budget, instead of suggesting one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-budget-'));
    const file = join(dir, 'tight.yaml');
    const tool = (name: string) => `  - name: ${name}\n    description: Weather for a city with temperature in Celsius and a short summary of it.\n    parameters: { type: object, properties: { city: { type: string, description: The city name } }, required: [city] }\n    handler: { mock: [ { result: ok } ] }\n`;
    writeFileSync(file, `toolman: 1\nbudget: { definitions: 50 }\ntools:\n${tool('get_weather')}${tool('get_forecast')}`);
    const run = await runBin(['-c', file, 'budget', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).budget.over_after_deferral).toBeGreaterThan(0);
    const text = await runBin(['-c', file, 'budget']);
    expect(text.stdout).toMatch(/deferral cannot fit it: with every tool that can be deferred behind tool_search it would still be \d+ tokens over/);
    expect(text.stdout).not.toContain('defer these to fit');
  });
});

describe('toolman tokens', () => {
  it('refuses to count a body in another provider\'s format, naming the right one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-shape-'));
    writeFileSync(join(dir, 'chat.json'), JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }));
    const run = await runBin(['tokens', join(dir, 'chat.json'), '-P', 'anthropic']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/looks like an OpenAI Chat Completions request \(tools\[\]\.function\), not Anthropic Messages/);
    expect(run.stderr).toMatch(/hint: pass --provider openai/);
  });

  it('refuses Chat bodies as Responses and Responses bodies as Chat, and conversations it would not read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-shape-'));
    const write = (name: string, body: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(body));
      return join(dir, name);
    };
    const responses = write('responses.json', { model: 'gpt-4o', instructions: 'Be brief.', input: 'What is the weather in Paris today?' });
    const chat = write('chat.json', { model: 'gpt-4o', messages: [{ role: 'user', content: 'What is the weather in Paris today?' }] });
    const cases: [string, string, RegExp, RegExp][] = [
      [responses, 'openai', /looks like an OpenAI Responses request \("input"\), not OpenAI Chat Completions/, /pass --provider openai-responses/],
      [chat, 'openai-responses', /has "messages", which OpenAI Responses requests do not use \(they take "input" and "instructions"\)/, /--provider openai/],
      [chat, 'gemini', /has "messages", which Gemini requests do not use \(they take "contents"\)/, /--provider openai \(Chat Completions\) or --provider anthropic/],
      [write('text.json', { model: 'gpt-4o', messages: 'hi' }), 'openai', /has "messages" as text \("hi"\); OpenAI Chat Completions takes a list of messages/, /write "messages" as a list of messages/],
      [write('text2.json', { model: 'claude-sonnet-4-5', messages: 'hi' }), 'anthropic', /has "messages" as text/, /a list of messages/],
    ];
    for (const [file, provider, message, hint] of cases) {
      const run = await runBin(['tokens', file, '-P', provider]);
      expect(run.code, `${provider} ${file}`).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(hint);
    }
    // Without --provider the body is counted as Chat Completions: a Responses body is refused too.
    expect((await runBin(['tokens', responses])).stderr).toMatch(/hint: pass --provider openai-responses/);
    // The right provider counts what is there.
    const counted = JSON.parse((await runMain(['tokens', responses, '-P', 'openai-responses', '--json'])).stdout);
    expect(counted.breakdown.messages).toBeGreaterThan(10);
  });

  const dir = mkdtempSync(join(tmpdir(), 'toolman-tokens-'));
  const request = join(dir, 'request.json');
  writeFileSync(
    request,
    JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
        { role: 'user', content: "What's the weather like in San Francisco?" },
      ],
      tools: [{ type: 'function', function: { name: 'get_current_weather', description: 'Get the current weather in a given location', parameters: { type: 'object', properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' }, unit: { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } } }],
    }),
  );

  it('counts the cookbook request exactly: 101 on gpt-4o, 105 on gpt-4', async () => {
    const run = await runBin(['tokens', request, '--provider', 'openai', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ provider: 'openai', model: 'gpt-4o', estimate: false, tokens: 101, breakdown: { messages: expect.any(Number), tools: expect.any(Number) } });
    const gpt4 = await runMain(['tokens', request, '--model', 'gpt-4', '--json']);
    expect(JSON.parse(gpt4.stdout).tokens).toBe(105);
    const text = await runMain(['tokens', request]);
    expect(text.stdout).toMatch(/^101 input tokens \(exact\) for openai gpt-4o/);
  });

  it('estimates for other providers, and explains bad input', async () => {
    const anthropic = join(dir, 'anthropic.json');
    writeFileSync(anthropic, JSON.stringify({ model: 'claude-sonnet-4-5', system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'f', description: 'Do f.', input_schema: { type: 'object' } }] }));
    const run = await runMain(['tokens', anthropic, '-P', 'anthropic', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ provider: 'anthropic', estimate: true });
    writeFileSync(join(dir, 'bad.json'), '{');
    const bad = await runBin(['tokens', join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not valid JSON/);
  });
});

describe('--exact against the providers\' counting endpoints (local fake server)', () => {
  let server: Awaited<ReturnType<typeof startFakeProvider>>;
  beforeAll(async () => {
    server = await startFakeProvider();
  });
  afterAll(async () => server.close());

  it('tokens --exact asks Anthropic\'s count_tokens with the key and version headers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolman-exact-'));
    const body = { model: 'claude-sonnet-4-5', system: 'Be brief.', messages: [{ role: 'user', content: 'Hello, Claude' }] };
    writeFileSync(join(dir, 'req.json'), JSON.stringify(body));
    const run = await runBin(['tokens', join(dir, 'req.json'), '-P', 'anthropic', '--exact', '--json'], { env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url } });
    expect(run.code).toBe(0);
    const last = server.requests[server.requests.length - 1]!;
    expect(last.url).toBe('/v1/messages/count_tokens');
    expect(last.headers['x-api-key']).toBe('test-key');
    expect(last.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.parse(run.stdout)).toMatchObject({ estimate: false, tokens: 10 + Math.round(JSON.stringify(last.body).length / 4) });
  });

  it('budget --exact gets eager and deferred totals from Gemini', async () => {
    const run = await runBin([...large, 'budget', '-P', 'gemini', '-p', 'minimal', '--exact', '--json'], { env: { GEMINI_API_KEY: 'g-key', GEMINI_BASE_URL: server.url } });
    const doc = JSON.parse(run.stdout);
    expect(doc.exact.eager).toBeGreaterThan(doc.exact.deferred);
    expect(server.requests.some((r) => /\/v1beta\/models\/gemini-2\.5-flash:countTokens$/.test(r.url) && r.headers['x-goog-api-key'] === 'g-key')).toBe(true);
  });

  it('budget --exact counts exactly the payloads the estimate counts (defer: auto, forced choice)', async () => {
    const before = server.requests.length;
    const run = await runBin([...budget, 'budget', '-P', 'anthropic', '-p', 'auto', '--force', 'get_order', '--exact', '--json'], { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url } });
    expect(run.stderr).toBe('');
    const doc = JSON.parse(run.stdout);
    expect(run.code).toBe(doc.budget.ok ? 0 : 1);
    const bodies = server.requests.slice(before).map((r) => r.body as { tools?: { name: string }[]; tool_choice?: unknown });
    const sent = bodies.map((b) => (b.tools ?? []).map((t) => t.name).sort());
    const rows = doc.tools as { name: string; deferred: boolean }[];
    const eager = rows.map((r) => r.name).sort();
    const deferred = [...rows.filter((r) => !r.deferred).map((r) => r.name), 'tool_search'].sort();
    // Three requests: without tools, every tool eagerly, and what the session sends with deferral.
    expect(sent).toEqual([[], eager, deferred]);
    expect(rows.some((r) => r.deferred)).toBe(true);
    // The forced tool is the tool choice in both, as the estimate assumed.
    expect(bodies.slice(1).map((b) => b.tool_choice)).toEqual([{ type: 'tool', name: 'get_order' }, { type: 'tool', name: 'get_order' }]);
    expect(doc.exact.eager).toBeGreaterThan(doc.exact.deferred);
  });

  it('budget --exact asks the Responses API\'s input_tokens endpoint, through the openai SDK', async () => {
    const before = server.requests.length;
    const run = await runBin([...large, 'budget', '-P', 'openai-responses', '-p', 'minimal', '--exact', '--json'], { env: { OPENAI_API_KEY: 'o-key', OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(run.stderr).toBe('');
    const doc = JSON.parse(run.stdout);
    expect(doc.exact.eager).toBeGreaterThan(doc.exact.deferred);
    const sent = server.requests.slice(before);
    expect(sent.map((r) => r.url)).toEqual(['/v1/responses/input_tokens', '/v1/responses/input_tokens', '/v1/responses/input_tokens']);
    expect(sent[0]!.headers.authorization).toBe('Bearer o-key');
    // Toolman's own Responses counts are estimates, and say why.
    expect(doc).toMatchObject({ estimate: true, estimate_reasons: expect.arrayContaining([expect.stringMatching(/Responses API: Chat Completions rules applied/)]) });
  });

  it('needs a key, and reports provider failures clearly', async () => {
    const noKey = await runBin(['tokens', 'test/fixtures/tokens/openai_cookbook_tool_token_examples.json', '-P', 'anthropic', '--exact'], { env: { ANTHROPIC_API_KEY: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--exact asks Anthropic for the count and needs ANTHROPIC_API_KEY/);
    const failing = await startFakeProvider({ status: 401 });
    const run = await runBin([...large, 'budget', '-P', 'anthropic', '--exact'], { env: { ANTHROPIC_API_KEY: 'bad', ANTHROPIC_BASE_URL: failing.url } });
    await failing.close();
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Anthropic token counting failed: HTTP 401: invalid x-api-key/);
    expect(run.stderr).toMatch(/check the API key/);
    const down = await runBin([...large, 'budget', '-P', 'anthropic', '--exact'], { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/Anthropic token counting failed/);
    expect(down.stderr).not.toMatch(/\n\s+at /);
  });
});
