// Makes the shipped recordings in catalogs/recordings/: one short session per shipped catalog,
// recorded by `toolman chat --record` against the tests' scripted model server (no network, no
// key), so anyone can watch the whole loop work with `toolman -c catalogs/NAME.yaml chat --replay FILE`. The scripts
// below are what the "model" says; the tools run for real (their mock handlers), so an answer
// must say only what the prompt, the calls and the mock results say (names, subjects, ids, times:
// test/loop/recording-answers.test.ts checks it). Run it again after changing a shipped catalog:
// test/loop/shipped-recordings.test.ts fails until you do.
//   node scripts/make-recordings.mjs [NAME...]   (only these catalogs' recordings; default: all)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleForScript } from './bundle-for-script.mjs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const bundle = await bundleForScript('model-server', ["export { startModelServer } from './test/helpers/model-server.ts';"]);
const { startModelServer } = await import(bundle);

/** Per catalog: the profile, and each user message with the replies the scripted model gives. */
const SESSIONS = {
  assistant: {
    turns: [
      {
        prompt: "What's on my calendar on Monday the 23rd? Add lunch with Ana at 12:30 that day.",
        replies: [
          { toolCalls: [{ name: 'list_calendar_events', arguments: { from: '2026-11-23', to: '2026-11-23' } }], usage: { input: 1480, output: 38 } },
          { toolCalls: [{ name: 'add_calendar_event', arguments: { title: 'Lunch with Ana', start: '2026-11-23T12:30:00+01:00', duration_minutes: 60, attendees: ['ana@example.com'] } }], usage: { input: 1602, output: 61 } },
          { text: 'On Monday the 23rd you have Standup from 09:00 to 09:15 UTC. I added "Lunch with Ana" at 12:30 (+01:00) for an hour and invited ana@example.com.', usage: { input: 1701, output: 38 } },
        ],
      },
      {
        prompt: 'Thanks. Any unread email from Ana?',
        replies: [
          { toolCalls: [{ name: 'search_email', arguments: { query: 'from:ana@example.com is:unread' } }], usage: { input: 1768, output: 24 } },
          { text: 'Yes: one unread message from ana@example.com, "November invoice" (2026-11-20), which starts "Please find attached…".', usage: { input: 1850, output: 27 } },
        ],
      },
    ],
  },
  coding: {
    turns: [
      {
        prompt: 'Where is loadCatalog defined? Show me the start of that file.',
        replies: [
          { toolCalls: [{ name: 'grep_code', arguments: { pattern: 'function loadCatalog', glob: '*.ts' } }], usage: { input: 1390, output: 30 } },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'src/catalog.ts', start_line: 1, end_line: 20 } }], usage: { input: 1455, output: 34 } },
          { text: 'loadCatalog is defined in src/catalog.ts at line 12. The file starts with `export const answer = 42;`.', usage: { input: 1520, output: 30 } },
        ],
      },
      {
        // run_tests is stateful: it answers with the first test file's results and job_1, and
        // job_next reads the rest; save_note is a handler plugin (catalogs/plugins/toolman-plugin-kv).
        prompt: 'Run the tests. Keep a note of anything that fails, then tell me how it went.',
        replies: [
          { toolCalls: [{ name: 'run_tests', arguments: {} }], usage: { input: 1610, output: 18 } },
          {
            toolCalls: [
              { name: 'save_note', arguments: { key: 'failing-test', value: 'test/catalog.test.mjs: "loads includes" fails: expected 2 files, got 1' } },
              { name: 'job_next', arguments: { job_id: 'job_1', until: 'end', wait_ms: 30000 } },
            ],
            usage: { input: 1702, output: 71 },
          },
          { text: 'The run is done: 3 test files, 5 tests passed and 1 failed. The failure is "loads includes" in test/catalog.test.mjs (expected 2 files, got 1); I saved it as the note failing-test.', usage: { input: 1866, output: 45 } },
        ],
      },
    ],
  },
  enterprise: {
    // Requests in the order toolman sends them: the page is over its limit, so the summarising
    // model (budget.summarize) is asked between rounds 2 and 3; the rubric `grounded` is graded
    // after the answer. Both side calls are recorded with the conversation's and replayed from it.
    turns: [
      {
        prompt: 'What is our parental leave policy?',
        replies: [
          { toolCalls: [{ name: 'search_intranet', arguments: { query: 'parental leave policy', space: 'hr' } }], usage: { input: 1290, output: 29 } },
          { toolCalls: [{ name: 'read_intranet_page', arguments: { url: 'https://intranet.example.com/hr/parental-leave' } }], usage: { input: 1420, output: 31 } },
          { text: 'Parental leave (updated 2026-09-01): all employees, from their first day, get 20 weeks of fully paid leave, taken within 12 months of the child arriving in up to three blocks. Apply through the HR portal at least 8 weeks ahead; a phased return of up to 8 weeks part-time at full pay is possible.', usage: { input: 330, output: 66 } },
          { text: 'Parental leave is 20 weeks, fully paid, for every employee from their first day; take it within 12 months of the child arriving, in up to three blocks, and apply through the HR portal at least 8 weeks ahead [1].', usage: { input: 1560, output: 48 } },
          { text: '{"verdict": "pass"}', usage: { input: 520, output: 6 } },
        ],
      },
    ],
  },
  large: {
    profile: 'minimal',
    turns: [
      {
        prompt: 'List the open invoices of account acc_42.',
        replies: [
          { toolCalls: [{ name: 'tool_search', arguments: { query: 'list invoices of an account' } }], usage: { input: 910, output: 21 } },
          { toolCalls: [{ name: 'billing_list_invoices', arguments: { account_id: 'acc_42', status: 'open' } }], usage: { input: 1240, output: 27 } },
          { text: 'Account acc_42 has one open invoice: INV-2026-0042.', usage: { input: 1330, output: 16 } },
        ],
      },
    ],
  },
};

const out = join(root, 'catalogs', 'recordings');
mkdirSync(out, { recursive: true });
const only = process.argv.slice(2);
for (const [name, session] of Object.entries(SESSIONS)) {
  if (only.length && !only.includes(name)) continue;
  const server = await startModelServer();
  server.script(session.turns.flatMap((t) => t.replies));
  const file = join(out, `${name}.jsonl`);
  rmSync(file, { force: true }); // toolman never overwrites a recording
  const prompts = session.turns.flatMap((t) => ['--prompt', t.prompt]);
  const args = [join(root, 'bin', 'toolman.js'), '-c', join(root, 'catalogs', `${name}.yaml`), 'chat', '--provider', 'openai', '--model', 'gpt-4o', '--record', file, '--no-transcript', '--json', ...(session.profile ? ['--profile', session.profile] : [])];
  // Asynchronous: the model server answers from this process while toolman runs.
  const result = await promisify(execFile)(process.execPath, [...args, ...prompts], {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: 'sk-make-recordings-placeholder-key', OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: '1' },
  });
  await server.close();
  // The loopback URL is the recording's business, not the user's.
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), base_url: null });
  writeFileSync(file, lines.join('\n'));
  const doc = JSON.parse(result.stdout);
  const turns = doc.turns ?? [doc];
  console.log(`catalogs/recordings/${name}.jsonl: ${turns.length} turns, ${turns.reduce((n, t) => n + t.calls.length, 0)} calls, stops: ${turns.map((t) => t.stop).join(', ')}`);
}
