import { describe, expect, it } from 'vitest';
import { JUDGE_BATCH, judgeDescriptions, judgeRequestText, MAX_REPLY_CHARS, parseJudgeReply, type JudgedToolText } from '../../src/conversation/description-judge.js';
import type { SideRequest } from '../../src/conversation/side-models.js';

const tool = (name: string, description = `Do ${name} things for the user and return what was done.`): JudgedToolText => ({ name, description, parameters: { type: 'object', properties: { id: { type: 'string', description: 'The id.' } }, required: ['id'] } });
const tools = Array.from({ length: 19 }, (_, i) => tool(`tool_${i}`));

describe('the description judge', () => {
  it('asks in batches, each showing every other tool as a sibling, and keeps each batch\'s grades', async () => {
    const asked: SideRequest[] = [];
    const grades = await judgeDescriptions(
      async (request) => {
        asked.push(request);
        const names = [...request.text.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);
        return JSON.stringify({ tools: names.map((name, i) => ({ name, score: 50 + i, notes: `note ${name}` })) });
      },
      tools,
      { model: 'openai:m' },
    );
    expect(asked).toHaveLength(Math.ceil(19 / JUDGE_BATCH));
    for (const request of asked) {
      const graded = [...request.text.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);
      for (const other of tools.filter((t) => !graded.includes(t.name))) expect(request.text).toContain(`- ${other.name}: Do ${other.name} things for the user and return what was done.`);
    }
    expect(grades.size).toBe(19);
    expect(grades.get('tool_9')).toEqual({ model: 'openai:m', score: 51, notes: 'note tool_9', confusable_with: [] });
  });

  it('a batch the model fails gives its tools an error; the other batches keep their grades', async () => {
    let n = 0;
    const grades = await judgeDescriptions(
      async (request) => {
        if (n++ === 0) throw new Error('429 rate limited');
        const names = [...request.text.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);
        return JSON.stringify({ tools: names.map((name) => ({ name, score: 70 })) });
      },
      tools,
      { model: 'openai:m' },
    );
    const errors = [...grades.values()].filter((g) => 'error' in g);
    expect(errors).toHaveLength(JUDGE_BATCH);
    expect(errors[0]).toEqual({ model: 'openai:m', error: 'openai:m could not grade it: 429 rate limited' });
    expect([...grades.values()].filter((g) => 'score' in g)).toHaveLength(19 - JUDGE_BATCH);
  });

  it('the request is bounded: a long description is cut, the siblings fit a budget and the rest are counted', () => {
    const many = Array.from({ length: 400 }, (_, i) => tool(`sibling_${i}`, `${'word '.repeat(60)}.`));
    const text = judgeRequestText([tool('graded', 'x'.repeat(10_000))], many);
    expect(text.length).toBeLessThan(20_000);
    expect(text).toMatch(/\(and \d+ more\)/);
    expect(text).toContain('… [cut]');
  });

  it('believes only grades of the batch\'s tools, once each, of the asked shape; confusable names only of tools it saw', () => {
    const batch = [tool('a'), tool('b')];
    const siblings = [tool('c')];
    const grades = parseJudgeReply(
      `Here you go:\n\`\`\`json\n${JSON.stringify({ tools: [{ name: 'a', score: 80.4, confusable_with: ['b', 'c', 'zzz', 'a'] }, { name: 'a', score: 1 }, { name: 'c', score: 5 }, { name: 'evil', score: 100 }] })}\n\`\`\``,
      batch,
      siblings,
      'm',
    );
    expect(grades.get('a')).toEqual({ model: 'm', score: 80, notes: '', confusable_with: ['b', 'c'] });
    expect(grades.get('b')).toEqual({ model: 'm', error: 'the judge did not grade it' });
    expect(grades.has('c')).toBe(false);
    expect(grades.has('evil')).toBe(false);
  });

  it('refuses replies that are too long, not JSON, of another shape, or nested to break the parser', () => {
    const batch = [tool('a')];
    const error = (reply: string) => (parseJudgeReply(reply, batch, [], 'm').get('a') as { error: string }).error;
    expect(error('x'.repeat(MAX_REPLY_CHARS + 1))).toContain(`more than ${MAX_REPLY_CHARS}`);
    expect(error('{not json}')).toContain('not JSON');
    expect(error(JSON.stringify({ tools: [{ name: 'a', score: '90' }] }))).toContain('not of the asked shape (/tools/0/score must be number)');
    expect(error(JSON.stringify({ grades: [] }))).toContain("must have required property 'tools'");
    expect(error(`{"tools": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`)).toContain('not of the asked shape');
    expect(error(`{"tools": [${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}]}`)).toMatch(/not JSON|not of the asked shape/);
  });
});
