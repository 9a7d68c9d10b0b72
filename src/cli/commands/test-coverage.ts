import type { Suite } from '../../testing/suite-types.js';
import type { Tool } from '../../catalog/types.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { plainText } from '../output/terminal-text.js';
import { writeReportFile } from '../output/write-report-file.js';
import { suitesHost, suitesRequest, type TestOptions } from './test-setup.js';

/**
 * `toolman test SUITE... --coverage`: the tools, parameters and enum values of the catalog the
 * suites run on that no case exercises (suite-coverage.ts). No model, nothing runs; text, --json,
 * or JUnit properties with --junit FILE. Exit 0: coverage informs, it does not gate.
 */
export async function coverageCommand(options: TestOptions, io: CliIO): Promise<ExitCode> {
  // Nothing runs: flags about runs are refused, not ignored.
  const refused = [['--html', options.html], ['--baseline', options.baseline], ['--update-baseline', options.updateBaseline], ['--history', options.history], ['--quarantine-flaky', options.quarantineFlaky], ['--shard', options.shard], ['--sequential', options.sequential], ['--record', options.record]] as const;
  for (const [flag, value] of refused) if (value !== undefined && value !== false) throw new ToolmanError(ErrorCode.USAGE, `${flag} does not go with --coverage, which runs nothing`, { hint: 'run the suites without --coverage for that' });
  const request = await suitesRequest({ ...options, coverage: false }, io);
  const { eachSuite } = await import('../../testing/run-suites.js');
  const { suiteCoverage, coverageProperties } = await import('../../testing/suite-coverage.js');
  // Each suite against the tools its profile can offer (active and deferred), in the catalog it runs on.
  const tools = new Map<string, Tool>();
  const suites: Suite[] = [];
  const aliases = new Map<string, string>();
  await eachSuite(request, suitesHost(io), async (manager, suite) => {
    const selection = manager.select(suite.profile ? { profile: suite.profile } : {});
    for (const tool of [...selection.active, ...selection.deferred]) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    for (const tool of manager.catalog.tools) for (const alias of tool.aliases) if (!aliases.has(alias)) aliases.set(alias, tool.name);
    suites.push(suite);
  });
  const coverage = suiteCoverage([...tools.values()], suites, (name) => aliases.get(name) ?? name);
  if (options.junit) {
    const { junitPropertiesXml } = await import('../../testing/junit-report.js');
    writeReportFile(options.junit, junitPropertiesXml('coverage', coverageProperties(coverage)), { label: '--junit', mode: 'replace', cwd: io.cwd });
  }
  if (options.json) {
    io.stdout.write(JSON.stringify({ suites: suites.map((s) => s.name), coverage }, null, 2) + '\n');
    return EXIT.OK;
  }
  const c = palette(colorEnabled(io, io.stdout));
  const share = (x: { covered: number; total: number }) => `${x.covered}/${x.total}${x.total ? ` (${((x.covered / x.total) * 100).toFixed(0)}%)` : ''}`;
  io.stdout.write(`coverage of the catalog by ${suites.map((s) => plainText(s.name)).join(', ')} (what the cases expect called, with which arguments):\n`);
  io.stdout.write(`  tools        ${share(coverage.tools)}\n  parameters   ${share(coverage.parameters)}\n  enum values  ${share(coverage.enum_values)}\n`);
  if (coverage.tools.uncovered.length) io.stdout.write(`\ntools no case expects called:\n${coverage.tools.uncovered.map((t) => `  ${c.yellow(plainText(t))}\n`).join('')}`);
  const covered = new Set(coverage.tools.uncovered);
  const params = coverage.parameters.uncovered.filter((p) => !covered.has(p.tool));
  if (params.length) io.stdout.write(`\nparameters no case gives (of tools that are expected):\n${params.map((p) => `  ${plainText(p.tool)}.${plainText(p.parameter)}\n`).join('')}`);
  const values = coverage.enum_values.uncovered.filter((e) => !covered.has(e.tool));
  if (values.length) io.stdout.write(`\nenum values no case names (of tools that are expected):\n${values.map((e) => `  ${plainText(e.tool)}.${plainText(e.parameter)} = ${plainText(JSON.stringify(e.value))}\n`).join('')}`);
  return EXIT.OK;
}
