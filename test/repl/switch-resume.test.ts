// First: ink must load as on a terminal even when CI is set (see the module).
import './ink-as-terminal.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTranscriptFile } from '../../src/conversation/transcript-history.js';
import type { ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';
import { KEY, replTestbed, type Harness } from './harness.js';

const bed = replTestbed();
/** The file's model server (bed.server, named once it has started). */
let server: ModelServer;
beforeAll(() => {
  server = bed.server;
});
const repl = bed.start;
const flat = (h: Harness) => h.frame().replace(/\s+/g, ' ');

describe('/model and /provider', () => {
  it('/model NAME goes on with another model; /provider NAME with another provider, the conversation along', async () => {
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold in Oslo.' }]);
    const h = await repl();
    await h.send('weather in Oslo?');
    await h.idle();
    await h.send('/model gpt-other');
    await h.waitFor('✓ now openai gpt-other (was openai test-model); the conversation goes on with its 4 messages');
    expect(flat(h)).toContain('openai gpt-other | profile full');
    await h.send('/provider anthropic');
    await h.waitFor('✓ now anthropic claude-sonnet-5');
    expect(flat(h)).toContain('anthropic claude-sonnet-5 | profile full');
    server.script([{ text: 'Still cold.' }]);
    await h.send('and tomorrow?');
    await h.idle();
    const request = server.requests.at(-1)!;
    expect(request.api).toBe('messages');
    expect(JSON.stringify(request.body.messages)).toContain('weather in Oslo?');
    expect(JSON.stringify(request.body.messages)).toContain('"type":"tool_result"');
    expect(h.frame()).toContain('Still cold.');
  });

  it('/provider lists the providers; a wrong name gets a suggestion; a missing key says which; nothing changes', async () => {
    const h = await repl({ env: { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', GEMINI_BASE_URL: '' } });
    await h.send('/provider');
    await h.waitFor('providers (/provider NAME [MODEL] switches)');
    expect(h.frame()).toMatch(/\* openai +OpenAI Chat Completions · default model gpt-4o/);
    await h.send('/provider antropic');
    await h.waitFor('error: no provider "antropic"; did you mean anthropic?');
    await h.send('/provider gemini');
    await h.waitFor('needs GEMINI_API_KEY');
    expect(flat(h)).toContain('openai test-model | profile full');
    await h.send('/model');
    await h.waitFor(/model\nopenai test-model/);
  });

  it('a replay cannot switch, and says why', async () => {
    const { readRecording } = await import('../../src/manager/recordings.js');
    const { readFileSync } = await import('node:fs');
    const recording = readRecording(readFileSync(join(ROOT, 'catalogs/recordings/assistant.jsonl'), 'utf8'), 'assistant.jsonl');
    const h = await repl({ catalog: 'catalogs/assistant.yaml', recording });
    // The recorded message waits in the input line: Ctrl-U clears it.
    await h.write('\u0015');
    await h.send('/model gpt-other');
    await h.waitFor('this conversation cannot change its model: a replay answers from its recording');
  });
});

describe('a resumed conversation', () => {
  it('is on screen as it went (answers, tool calls with results), /history has it, and the next message goes on from it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolman-repl-resume-'));
    server.script([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is **3 °C** in Oslo.' }]);
    const first = await repl({ transcript: join(folder, 't.jsonl') });
    await first.send('weather in Oslo?');
    await first.idle();
    await first.close();
    const resume = readTranscriptFile(join(folder, 't.jsonl'), ROOT);
    const h = await repl({ resume });
    await h.waitFor('resumed');
    expect(h.frame()).toMatch(/> weather in Oslo\?\n✓ #1 get_weather \{"city":"Oslo"\}\n {2}done · \{"city":"Oslo","temp_c":3/);
    // Drawn as Markdown (without colour, its marks as written).
    expect(h.frame()).toContain('It is **3 °C** in Oslo.');
    expect(flat(h)).toContain(`· resumed ${join(folder, 't.jsonl')}: 1 turn, 4 messages; the conversation goes on with openai test-model`);
    await h.send('/history');
    await h.waitFor(/you said\n {2}1 {2}weather in Oslo\?/);
    server.script([{ text: 'Tomorrow too.' }]);
    await h.send('and tomorrow?');
    await h.idle();
    const messages = server.requests.at(-1)!.body.messages as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    await h.write(KEY.ctrlO);
  });
});
