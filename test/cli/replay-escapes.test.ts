import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

// A recording is untrusted. A reply the SDK cannot parse is printed by the SDK itself
// (openai 6.49 core/streaming.mjs: "Could not parse message into JSON:" and the data, through its
// logger or, for `thread.*` events, console.error): it reached the terminal with the escapes the
// recording held (a window title, an OSC 52 clipboard write, a cleared screen).
const folder = mkdtempSync(join(tmpdir(), 'toolman-replay-escapes-'));
const shipped = readFileSync(join(ROOT, 'suites/recordings/assistant/small-talk-needs-no-tool--openai-gpt-4o--1.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

function recording(name: string, body: string): string {
  const [header, prompt, exchange] = shipped as [Record<string, unknown>, Record<string, unknown>, { response: Record<string, unknown> }];
  const lines = [{ ...header, catalog: null }, prompt, { ...exchange, response: { ...exchange.response, body } }];
  const file = join(folder, `${name}.jsonl`);
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}

describe('chat --replay of a reply the SDK cannot parse', () => {
  it.each([
    ['through the SDK logger', 'data: {\u001b]0;PWNED\u0007\u001b[2J\n\n'],
    ['through console.error (a thread.* event)', 'event: thread.run\ndata: \u001b]52;c;ZWNobyBwd25lZA==\u0007x\n\n'],
  ])('%s: a clear error, exit 1, and no escape from the recording on the terminal', async (_how, body) => {
    const run = await runBin(['chat', '--replay', recording(_how.replace(/\W+/g, '-'), body), '-c', 'catalogs/assistant.yaml', '-p', 'assistant', '--no-transcript'], { env: { TOOLMAN_CACHE_DIR: 'off' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('toolman: error:');
    expect(run.stderr).toContain('Could not parse message into JSON');
    expect(run.stdout + run.stderr).not.toMatch(/[\u001b\u0007]/);
  });
});
