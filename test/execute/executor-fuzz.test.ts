import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import type { Tool } from '../../src/catalog/types.js';
import type { ToolRunner } from '../../src/execute/runner.js';
import { defaultRunners } from '../../src/execute/runners/default-runners.js';
import type { ToolCall } from '../../src/execute/types.js';
import { ToolSession } from '../../src/session/tool-session.js';
import { SecretSet } from '../../src/shared/secrets.js';
import { ROOT } from '../helpers/paths.js';

const { catalog } = loadCatalog(['test/fixtures/catalogs/executor.yaml'], { cwd: ROOT });
// Tools that answer at once (the fuzzing is about inputs, not waiting for latencies and timeouts).
const names = catalog.tools.filter((t) => t.handler?.kind === 'mock' && t.handler.cases.every((c) => !c.latency_ms)).map((t) => t.name);

/** What a model might send: any JSON, JSON text, hostile strings and names. */
const hostile = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', '{{args}}', '${env:SECRET}', '\u001b[2J', '../..', '-rf'));
const argumentValue = fc.oneof(
  fc.jsonValue({ maxDepth: 5 }),
  fc.dictionary(hostile, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string(),
  fc.nat(300).map((n) => JSON.parse('{"a":'.repeat(n) + '1' + '}'.repeat(n)) as unknown),
);
const toolCall = fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.oneof(fc.constantFrom(...names, 'invoke_tool', 'tool_search'), hostile), arguments: argumentValue });

describe('model arguments into the executor [fuzz]', () => {
  it('every call gets exactly one response, as a value; the turn never throws', async () => {
    const session = new ToolSession(catalog, {}, { cwd: ROOT, approve: async () => 'approve' });
    await fc.assert(
      fc.asyncProperty(fc.array(toolCall, { minLength: 1, maxLength: 6 }), async (calls: ToolCall[]) => {
        const turn = await session.runTurn(calls);
        expect(turn.responses).toHaveLength(calls.length);
        for (const response of turn.responses) {
          expect(typeof response.content).toBe('string');
          expect(response.ok || typeof response.error === 'string').toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('tool results into truncation and redaction [fuzz]', () => {
  const echo: Tool = { ...catalog.tools.find((t) => t.name === 'big')!, name: 'echo', handler: { kind: 'agent', agent: 'echo' }, maxResultTokens: 40, truncation: 'smart' };
  const withEcho = { ...catalog, tools: [...catalog.tools, echo] };

  it('a secret in any result never reaches the response, whatever the truncation does', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Six characters or more, so a secret cannot occur by chance in toolman's own words ("[redacted]", "truncated").
        fc.string({ minLength: 6, maxLength: 20 }),
        fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.string({ maxLength: 2000 })),
        fc.constantFrom('raw', 'json', 'url', 'base64'),
        fc.constantFrom<Tool['truncation']>('head', 'tail', 'smart'),
        async (secret, filler, encoding, truncation) => {
          const form = { raw: secret, json: JSON.stringify(secret).slice(1, -1), url: encodeURIComponent(secret), base64: Buffer.from(secret).toString('base64') }[encoding];
          const runner: ToolRunner<'agent'> = { kind: 'agent', run: async () => ({ filler, leak: `token=${form}`, more: filler }) };
          const secrets = new SecretSet();
          secrets.add(secret);
          const tools = { ...withEcho, tools: withEcho.tools.map((t) => (t.name === 'echo' ? { ...t, truncation } : t)) };
          const session = new ToolSession(tools, {}, { cwd: ROOT, runners: defaultRunners().with(runner), secrets });
          const turn = await session.runTurn([{ id: 'c1', name: 'echo', arguments: {} }]);
          const response = turn.responses[0]!;
          const visible = `${response.content}\n${response.error ?? ''}`.split('[redacted]').join('\u0000');
          expect(visible.includes(form)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
