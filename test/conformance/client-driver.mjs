// The client under test for the conformance suite's client leg: the suite starts
// `node client-driver.mjs <server URL>` once per scenario (MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT in the environment), and this maps
// each scenario to runs of the built toolman CLI, as a user would type them: `mcp tools --url U`,
// `mcp call TOOL --url U --yes`, and for the authorization scenarios `--login` with a "browser"
// ($BROWSER = test/helpers/fake-browser.mjs: it follows the sign-in page's redirect without
// opening anything) and a fresh token store. Nothing here speaks MCP itself: the suite judges
// toolman. Each run's output goes to stderr (the suite keeps it as stderr.txt).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOOLMAN = join(ROOT, 'bin', 'toolman.js');
const FAKE_BROWSER = join(ROOT, 'test', 'helpers', 'fake-browser.mjs');
/** The Client ID Metadata Document URL the suite's CIMD scenarios expect (it is never fetched). */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
// A fresh token store per scenario (no sign-in carries over), removed when the driver ends.
const configDir = mkdtempSync(join(tmpdir(), 'toolman-conformance-'));
process.on('exit', () => rmSync(configDir, { recursive: true, force: true }));
const env = {
  ...process.env,
  TOOLMAN_CACHE_DIR: 'off',
  TOOLMAN_CONFIG_DIR: configDir,
  TOOLMAN_OAUTH_CLIENT_METADATA_URL: CIMD_URL,
  BROWSER: `${process.execPath} ${FAKE_BROWSER}`,
  NO_COLOR: '1',
};

function toolman(...args) {
  const run = spawnSync(process.execPath, [TOOLMAN, ...args], { env, encoding: 'utf8', timeout: 50_000 });
  process.stderr.write(`$ toolman ${args.join(' ')}\n${run.stdout}${run.stderr}(exit ${run.status})\n`);
  return run;
}

/**
 * The suite starts every scenario's client at once (`--requirements` runs them in parallel, with
 * no option to limit it): 39 toolman runs together on a 2-core machine starve everything else
 * (the serve leg's 500 ms checks among them). So a scenario first takes one of a few slots,
 * folders made atomically under TOOLMAN_CONFORMANCE_SLOTS (the test sets it), each holding its
 * owner's pid; a slot whose owner died (a client the suite killed on timeout) is taken over.
 */
function takeSlot() {
  const dir = process.env.TOOLMAN_CONFORMANCE_SLOTS;
  if (!dir) return;
  const count = Number(process.env.TOOLMAN_CONFORMANCE_PARALLEL ?? 2);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    for (let i = 0; i < count; i++) {
      const slot = join(dir, `slot-${i}`);
      try {
        mkdirSync(slot);
        writeFileSync(join(slot, 'pid'), String(process.pid));
        process.on('exit', () => rmSync(slot, { recursive: true, force: true }));
        return;
      } catch {
        if (!alive(slot)) rmSync(slot, { recursive: true, force: true });
      }
    }
    Atomics.wait(pause, 0, 0, 100);
  }
}
function alive(slot) {
  let pid;
  try {
    pid = Number(readFileSync(join(slot, 'pid'), 'utf8'));
  } catch {
    return true; // being written now
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
takeSlot();

// No --protocol: toolman's default (auto) finds each scenario server's era, 2025-11-25 ones included.
const server = ['--url', url];
/** The server's tools: MCP names, and arguments a user would give (a placeholder for each required parameter). */
function tools(extra = []) {
  const run = toolman('mcp', 'tools', '--json', ...server, ...extra);
  try {
    return JSON.parse(run.stdout).tools.map((t) => ({ name: t.mcp_name, parameters: t.parameters, args: placeholders(t.parameters) }));
  } catch {
    return [];
  }
}
function placeholders(schema) {
  const value = { string: 'x', integer: 1, number: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries((schema?.required ?? []).map((name) => [name, value[schema.properties?.[name]?.type] ?? 'x']));
}
const call = (name, args = {}, extra = []) => toolman('mcp', 'call', name, '--args', JSON.stringify(args), '--yes', ...server, ...extra);

if (scenario === 'tools_call') {
  const [first] = tools();
  if (first) call(first.name, { a: 2, b: 3 });
} else if (scenario === 'request-metadata' || scenario === 'json-schema-ref-no-deref' || scenario === 'initialize') {
  tools();
} else if (scenario.startsWith('http-')) {
  const listed = tools();
  for (const c of context.toolCalls ?? []) call(c.name, c.arguments ?? {});
  if (!context.toolCalls) for (const tool of listed) call(tool.name, tool.args);
} else if (scenario === 'sep-2322-client-request-state') {
  for (const name of ['test_mrtr_echo_state', 'test_mrtr_unrelated', 'test_mrtr_no_state', 'test_mrtr_no_result_type']) call(name);
} else if (scenario === 'json-schema-2020-12-preservation') {
  // The scenario's echo tool takes back the schema the client holds for json_schema_2020_12_tool,
  // verbatim: here, the parameters toolman keeps for it (what a model would be given).
  const listed = tools();
  const focal = listed.find((t) => t.name === 'json_schema_2020_12_tool');
  if (focal) call('json_schema_echo', { schema: focal.parameters });
} else if (scenario.startsWith('auth/')) {
  if (scenario === 'auth/pre-registration' && context.client_id) {
    // A client registered beforehand: its id as a flag, its secret through an environment variable.
    env.CONFORMANCE_CLIENT_SECRET = context.client_secret ?? '';
    toolman('mcp', 'login', '--url', url, '--client-id', context.client_id, ...(context.client_secret ? ['--client-secret-env', 'CONFORMANCE_CLIENT_SECRET'] : []));
    call('test-tool', {});
  } else {
    call('test-tool', {}, ['--login']);
  }
} else {
  // Any other scenario: list, then call each tool once.
  for (const tool of tools()) call(tool.name, tool.args);
}
