// Makes the shipped suite recordings in suites/recordings/: `toolman test SUITE --record` against
// the tests' scripted model server (no network, no key), so `toolman test suites/X.yaml --replay
// suites/recordings` runs offline, in CI and in `npm test`. The replies below are what the "model"
// says for each user message, round by round; the tools run for real (mock handlers, stubs).
// Runs are concurrent, so the server picks each reply from the request itself: the last user
// message says which turn, the assistant messages after it say which round.
// Calls toolman makes beside the conversation's (a summary of a long result, a rubric's grade) are
// answered from SIDE_REPLIES, told apart by their instruction (the system prompt).
// Run it again after changing a shipped suite or catalog:
//   node scripts/make-suite-recordings.mjs [NAME...]   (only these suites; default: all)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleForScript } from './bundle-for-script.mjs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const bundle = await bundleForScript('model-server', ["export { startModelServer } from './test/helpers/model-server.ts';"]);
const { startModelServer } = await import(bundle);

/** Per suite: for each user message (matched by its start), the replies of each round. */
const SUITES = {
  assistant: {
    'Put a standup with Dana': [
      { toolCalls: [{ name: 'add_calendar_event', arguments: { title: 'Standup with Dana', start: '2026-11-23T09:00:00Z', duration_minutes: 15, attendees: ['dana@example.com'] } }], usage: { input: 1510, output: 52 } },
      { text: 'Done: "Standup with Dana" is on your calendar on Monday 23 November at 9:00 UTC, and Dana is invited.', usage: { input: 1601, output: 27 } },
    ],
    'Move my design review': [
      { toolCalls: [{ name: 'list_calendar_events', arguments: { from: '2026-11-24', to: '2026-11-24' } }], usage: { input: 1498, output: 30 } },
      { toolCalls: [{ name: 'update_calendar_event', arguments: { event_id: 'evt_102', start: '2026-11-25T14:00:00Z' } }], usage: { input: 1640, output: 35 } },
      { text: 'Your design review now starts on Wednesday 25 November at 14:00 UTC.', usage: { input: 1702, output: 19 } },
    ],
    'Thanks, that': [{ text: "You're welcome! Have a good day.", usage: { input: 1450, output: 9 } }],
    'Cancel the standup evt_101': [
      { toolCalls: [{ name: 'delete_calendar_event', arguments: { event_id: 'evt_101', notify_attendees: false } }], usage: { input: 1480, output: 30 } },
      { text: 'I cancelled the standup (evt_101) without emailing the attendees.', usage: { input: 1530, output: 16 } },
    ],
    'Any unread email from Ana': [
      { toolCalls: [{ name: 'search_email', arguments: { query: 'from:ana@example.com invoice', unread_only: true } }], usage: { input: 1470, output: 28 } },
      { text: 'Yes: "Invoice reminder" from Ana (21 November) says she is still waiting on the November invoice.', usage: { input: 1590, output: 25 } },
    ],
    'Remind me to pay the invoice': [
      { toolCalls: [{ name: 'create_task', arguments: { title: 'Pay the invoice', due: '2026-11-25' } }], usage: { input: 1476, output: 26 } },
      { text: 'Added "Pay the invoice", due 25 November.', usage: { input: 1540, output: 12 } },
    ],
    'And block 30 minutes': [
      { toolCalls: [{ name: 'add_calendar_event', arguments: { title: 'Pay the invoice', start: '2026-11-25T08:00:00Z', duration_minutes: 30 } }], usage: { input: 1610, output: 40 } },
      { text: 'Blocked 8:00 to 8:30 UTC on 25 November for it.', usage: { input: 1680, output: 15 } },
    ],
  },
  coding: {
    'Where is loadCatalog defined': [
      { toolCalls: [{ name: 'grep_code', arguments: { pattern: 'function loadCatalog', glob: '*.ts' } }], usage: { input: 1390, output: 30 } },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/catalog.ts', start_line: 1, end_line: 20 } }], usage: { input: 1455, output: 34 } },
      { text: 'loadCatalog is defined in src/catalog.ts at line 12; the file starts with `export const answer = 42;`.', usage: { input: 1520, output: 30 } },
    ],
    'Delete build/tmp.log': [
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'build/tmp.log' } }], usage: { input: 1380, output: 18 } },
      { text: 'Deleted build/tmp.log.', usage: { input: 1420, output: 8 } },
    ],
    'What changed in my working tree': [
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'git status changed files' } }], usage: { input: 1370, output: 20 } },
      { toolCalls: [{ name: 'git_status', arguments: {} }], usage: { input: 1520, output: 12 } },
      { text: 'On main, one file changed: src/catalog.ts.', usage: { input: 1580, output: 14 } },
    ],
    'Run the tests. Keep a note': [
      { toolCalls: [{ name: 'run_tests', arguments: {} }], usage: { input: 1610, output: 18 } },
      {
        toolCalls: [
          { name: 'save_note', arguments: { key: 'failing-test', value: 'test/catalog.test.mjs: "loads includes" fails: expected 2 files, got 1' } },
          { name: 'job_next', arguments: { job_id: 'job_1', until: 'end', wait_ms: 30000 } },
        ],
        usage: { input: 1702, output: 71 },
      },
      { text: 'The run is done: 2 test files, 3 passed and 1 failed ("loads includes" in test/catalog.test.mjs). I saved it as the note failing-test.', usage: { input: 1866, output: 40 } },
    ],
  },
  enterprise: {
    'parental leave policy': [
      { toolCalls: [{ name: 'search_intranet', arguments: { query: 'parental leave policy', space: 'hr' } }], usage: { input: 1290, output: 29 } },
      { toolCalls: [{ name: 'read_intranet_page', arguments: { url: 'https://intranet.example.com/hr/parental-leave' } }], usage: { input: 1420, output: 31 } },
      { text: 'Parental leave is 20 weeks, fully paid, for every employee from their first day; take it within 12 months of the child arriving, in up to three blocks [1].', usage: { input: 1560, output: 40 } },
    ],
    'My laptop screen is cracked': [
      { toolCalls: [{ name: 'create_ticket', arguments: { queue: 'it', title: 'Cracked laptop screen', details: 'Screen cracked; customer demo at 3pm today, needs a loaner or fix before then.', urgency: 'high' } }], usage: { input: 1230, output: 48 } },
      { text: 'I opened IT-4821 with IT, marked high urgency because of your 3pm demo.', usage: { input: 1310, output: 20 } },
    ],
    'Good morning': [{ text: 'Good morning! How can I help?', usage: { input: 1190, output: 8 } }],
  },
  large: {
    'List the open invoices': [
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'list invoices of an account' } }], usage: { input: 910, output: 21 } },
      { toolCalls: [{ name: 'billing_list_invoices', arguments: { account_id: 'acc_42', status: 'open' } }], usage: { input: 1240, output: 27 } },
      { text: 'Account acc_42 has one open invoice: INV-2026-0042.', usage: { input: 1330, output: 16 } },
    ],
  },
};

/** Per suite: the summarising model's reply (budget.summarize) and the rubric grader's. */
const SIDE_REPLIES = {
  enterprise: {
    summary: { text: 'Parental leave (updated 2026-09-01): all employees, from their first day, get 20 weeks of fully paid leave, taken within 12 months of the child arriving in up to three blocks. Apply through the HR portal at least 8 weeks ahead; a phased return of up to 8 weeks part-time at full pay is possible.', usage: { input: 330, output: 66 } },
    grade: { text: '{"verdict": "pass"}', usage: { input: 520, output: 6 } },
  },
};

/** The text of an OpenAI Chat message's content. */
const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => p.text ?? '').join('') : '');

const only = process.argv.slice(2);
for (const [name, replies] of Object.entries(SUITES)) {
  if (only.length && !only.includes(name)) continue;
  const server = await startModelServer();
  server.script((request) => {
    const messages = request.body.messages ?? [];
    const system = messages[0]?.role === 'system' ? textOf(messages[0].content) : '';
    if (system.startsWith('You shorten a tool result')) return SIDE_REPLIES[name].summary;
    if (system.startsWith("You grade an assistant's answer")) return SIDE_REPLIES[name].grade;
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const said = textOf(messages[lastUser]?.content);
    const key = Object.keys(replies).find((start) => said.includes(start));
    if (!key) throw new Error(`no scripted replies for: ${said.slice(0, 80)}`);
    const round = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    const reply = replies[key][round];
    if (!reply) throw new Error(`no scripted reply for round ${round + 1} of: ${key}`);
    return reply;
  });
  const out = join(root, 'suites', 'recordings');
  rmSync(join(out, name), { recursive: true, force: true });
  // The shipped catalog is named (-c): a suite only names its catalog, which toolman does not load on a suite's word.
  const args = [join(root, 'bin', 'toolman.js'), '-c', join(root, 'catalogs', `${name}.yaml`), 'test', join(root, 'suites', `${name}.yaml`), '--record', out, '--json'];
  const result = await promisify(execFile)(process.execPath, args, {
    cwd: root,
    env: { ...process.env, OPENAI_API_KEY: 'recording', OPENAI_BASE_URL: `${server.url}/v1`, NO_COLOR: '1' },
  }).catch((error) => error);
  await server.close();
  // The loopback URL is the recording's business, not the user's.
  for (const file of readdirSync(join(out, name))) {
    const lines = readFileSync(join(out, name, file), 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), base_url: null });
    writeFileSync(join(out, name, file), lines.join('\n'));
  }
  if (!result.stdout) throw new Error(result.stderr);
  const doc = JSON.parse(result.stdout);
  const runs = doc.suites.flatMap((s) => s.runs);
  console.log(`suites/recordings/${name}/: ${runs.length} runs, ${runs.filter((r) => r.passed).length} passed${doc.ok ? '' : ` (FAILED: ${JSON.stringify(runs.filter((r) => !r.passed).map((r) => [r.case, r.failures]))})`}`);
}
