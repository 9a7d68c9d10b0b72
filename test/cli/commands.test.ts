import { describe, expect, it } from 'vitest';
import { runBin, runMain } from '../helpers/cli.js';

describe('toolman list', () => {
  it('prints a table with flags and source locations', async () => {
    const run = await runBin(['--catalog', 'catalogs/enterprise.yaml', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/│ deep_research\s+│ research\s+│ read\s+│ exclusive, takes_control\s+│ catalogs\/enterprise.yaml:\d+/);
    expect(run.stdout).toMatch(/researcher .*agent/);
    expect(run.stdout).toContain('tools in enterprise');
  });

  it('--json lists every tool with category, effect, flags and source', async () => {
    const run = await runMain(['--catalog', 'catalogs/coding.yaml', 'list', '--json']);
    const doc = JSON.parse(run.stdout);
    expect(doc.tools).toHaveLength(18);
    expect(doc.tools.find((t: { name: string }) => t.name === 'run_command')).toMatchObject({
      category: 'shell',
      effect: 'write',
      flags: ['serial'],
      source: { file: 'catalogs/coding.yaml', line: expect.any(Number), column: 5 },
    });
  });

  it('refuses a catalog with errors, naming the first and how to see all', async () => {
    const run = await runBin(['--catalog', 'test/fixtures/diagnostics/TM0103-bad-value.yaml', 'list']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the catalog has 1 error; first: .*TM0103/);
    expect(run.stderr).toContain('toolman validate');
  });

  it('with several --catalog files, names the merged check that shows the error', async () => {
    const run = await runBin(['-c', 'catalogs/assistant.yaml', '-c', 'catalogs/coding.yaml', 'list']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('run `toolman -c catalogs/assistant.yaml -c catalogs/coding.yaml validate` to see them all');
    const merged = await runBin(['-c', 'catalogs/assistant.yaml', '-c', 'catalogs/coding.yaml', 'validate']);
    expect(merged.code).toBe(1);
    expect(merged.stdout).toContain('TM0208');
  });

  it('profiles: the "built in" legend only when a row is built in', async () => {
    expect((await runBin(['-c', 'catalogs/assistant.yaml', 'profiles'])).stdout).toContain('* built in');
    expect((await runBin(['-c', 'catalogs/large.yaml', 'profiles'])).stdout).not.toContain('* built in');
  });
});

describe('toolman show', () => {
  it('shows a tool with its parameter tree and JSON Schema', async () => {
    const run = await runMain(['--catalog', 'catalogs/assistant.yaml', 'show', 'add_calendar_event']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('add_calendar_event  Add calendar event');
    expect(run.stdout).toMatch(/├─ title string \[required\] — Event title/);
    expect(run.stdout).toMatch(/└─ attendees array of string \(email\) — Email addresses/);
    expect(run.stdout).toContain('"additionalProperties": false');
    expect(run.stdout).toContain('user_reminder: Confirm the date');
  });

  it('finds tools by alias and prints JSON', async () => {
    const run = await runMain(['--catalog', 'test/fixtures/catalogs/executor.yaml', 'show', 'find_record', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: 'lookup', aliases: ['find_record'], location: { file: 'test/fixtures/catalogs/executor.yaml', line: 7 } });
  });

  it('suggests close names for an unknown tool and exits 2', async () => {
    const run = await runBin(['--catalog', 'catalogs/assistant.yaml', 'show', 'send_mail']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no tool named "send_mail"; did you mean "send_email"/);
  });
});

describe('toolman schema and help', () => {
  it('prints the catalog JSON Schema', async () => {
    const run = await runMain(['schema']);
    const schema = JSON.parse(run.stdout);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.properties.tools.items.$ref).toBe('#/$defs/tool');
  });

  it('prints help and version', async () => {
    const help = await runMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/validate \[options\] \[files\.\.\.\]/);
    const version = await runMain(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await runMain([])).code).toBe(2);
  });
});
