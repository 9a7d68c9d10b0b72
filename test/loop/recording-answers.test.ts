import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The facts an answer states that can be checked by machine: quoted text ("…", “…”, `…`), email
 * addresses, ids and names with digits (evt_101, INV-2026-0042, acc_42), paths (src/catalog.ts),
 * dates and times, and numbers of two digits or more. Ordinals ("the 23rd") are words, not ids.
 */
function checkableClaims(answer: string): string[] {
  const claims = new Set<string>();
  const add = (pattern: RegExp, group = 0) => {
    for (const match of answer.matchAll(pattern)) claims.add(match[group]!);
  };
  add(/"([^"]+)"/g, 1);
  add(/“([^”]+)”/g, 1);
  add(/`([^`]+)`/g, 1);
  add(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g);
  add(/\b\d{4}-\d{2}-\d{2}\b/g);
  add(/\b\d{1,2}:\d{2}\b/g);
  add(/\b[\w.-]+\/[\w./-]*\w/g);
  add(/\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z_])(?!\d+(?:st|nd|rd|th)\b)[\w-]{3,}\b/g);
  for (const match of answer.replace(/\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|[\w-]*[A-Za-z_][\w-]*/g, ' ').matchAll(/\b\d{2,}\b/g)) claims.add(match[0]);
  return [...claims];
}

/** The claims of an answer that nothing the model was given says: not the user's prompt, its own calls, or the tools' results. */
function unsupportedClaims(answer: string, sources: readonly string[]): string[] {
  const said = sources.join('\n');
  return checkableClaims(answer).filter((claim) => !said.includes(claim));
}

describe('the checker', () => {
  it('finds what an answer says that its tool results do not: the README demo\'s old answer', () => {
    const result = '{"messages":[{"id":"msg_88","from":"ana@example.com","subject":"November invoice","date":"2026-11-20","snippet":"Please find attached…"}]}';
    expect(unsupportedClaims('Yes: one unread message from Ana, "Q4 planning", asking for your slides by Friday.', ['Thanks. Any unread email from Ana?', result])).toEqual(['Q4 planning']);
    expect(unsupportedClaims('Invoice INV-2026-0099 is due on 2026-12-01 at 10:30; 45 days late.', ['INV-2026-0042'])).toEqual(['2026-12-01', '10:30', 'INV-2026-0099', '45']);
    expect(unsupportedClaims('On Monday the 23rd: "Standup".', ['{"title":"Standup"}'])).toEqual([]);
  });
});

const recordings = readdirSync(join(ROOT, 'catalogs', 'recordings')).filter((f) => f.endsWith('.jsonl'));

describe('each shipped recording\'s answers say only what its prompts, calls and tool results say', () => {
  it.each(recordings)('%s', async (file) => {
    const path = join(ROOT, 'catalogs', 'recordings', file);
    const prompts = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type: string; text?: string })
      .filter((entry) => entry.type === 'prompt')
      .map((entry) => entry.text ?? '');
    const run = await runBin(['-c', `catalogs/${file.replace(/\.jsonl$/, '.yaml')}`, 'chat', '--replay', `catalogs/recordings/${file}`, '--json', '--no-transcript'], { env: {} });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { turns?: Turn[] } & Turn;
    const turns = doc.turns ?? [doc];
    expect(turns).toHaveLength(prompts.length);
    turns.forEach((turn, i) => {
      const sources = [prompts[i]!, ...turn.calls.flatMap((call) => [JSON.stringify(call.arguments), call.content])];
      expect(unsupportedClaims(turn.answer, sources), `turn ${i + 1} of ${file}: "${turn.answer}"`).toEqual([]);
    });
  });
});

interface Turn {
  answer: string;
  calls: { arguments: unknown; content: string }[];
}
