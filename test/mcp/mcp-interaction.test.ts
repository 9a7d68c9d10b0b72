import { describe, expect, it } from 'vitest';
import { interactionHandlers, MAX_OPEN_QUESTIONS, type McpInteraction } from '../../src/mcp/mcp-interaction.js';

// A server's questions reach the driver through interactionHandlers: what a flood of them gets.

describe('a server that asks many questions at once', () => {
  it(`has at most ${MAX_OPEN_QUESTIONS} open: the rest are declined at once, and the count frees as they are answered`, async () => {
    const waiting: (() => void)[] = [];
    const interaction: McpInteraction = {
      supports: { form: true },
      elicit: () => new Promise((resolve) => waiting.push(() => resolve({ action: 'accept', content: { ok: true } }))),
    };
    const handlers = interactionHandlers('flood', interaction, undefined);
    const ask = () => handlers.elicit!({ message: 'Again?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, new AbortController().signal);
    const asked = Array.from({ length: MAX_OPEN_QUESTIONS + 4 }, ask);
    const declined = await Promise.all(asked.slice(MAX_OPEN_QUESTIONS));
    expect(declined).toEqual(Array(4).fill({ action: 'decline' }));
    expect(waiting).toHaveLength(MAX_OPEN_QUESTIONS);
    for (const answer of waiting.splice(0)) answer();
    expect(await Promise.all(asked.slice(0, MAX_OPEN_QUESTIONS))).toEqual(Array(MAX_OPEN_QUESTIONS).fill({ action: 'accept', content: { ok: true } }));
    // Answered, they no longer count: the next question is asked.
    const next = ask();
    await new Promise((resolve) => setImmediate(resolve));
    expect(waiting).toHaveLength(1);
    waiting[0]!();
    expect(await next).toEqual({ action: 'accept', content: { ok: true } });
  });
});
