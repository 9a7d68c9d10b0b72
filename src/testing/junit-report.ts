import type { RunResult } from './run-suite.js';

/** Characters XML 1.0 cannot hold at all (not even escaped): control characters but tab, LF, CR; lone surrogates; U+FFFE/U+FFFF. */
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xml(text: string): string {
  return text.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * JUnit XML as Ant's JUnit.xsd defines it (what Jenkins, GitLab and GitHub reporters read): one <testsuite> per suite and provider,
 * one <testcase> per run (repeats are separate test cases, named `case #n`); a run whose
 * expectations failed has a <failure> listing each, a run that could not finish has an <error>.
 */
export function junitXml(suites: readonly { name: string; results: readonly RunResult[] }[], timestamp = new Date()): string {
  const stamp = timestamp.toISOString().replace(/\.\d{3}Z$/, '');
  const lines: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  const blocks: string[] = [];
  let id = 0;
  for (const suite of suites) {
    for (const provider of [...new Set(suite.results.map((r) => r.provider))]) {
      const runs = suite.results.filter((r) => r.provider === provider);
      const suiteFailures = runs.filter((r) => !r.passed && r.error === null).length;
      const suiteErrors = runs.filter((r) => r.error !== null).length;
      const suiteTime = runs.reduce((s, r) => s + r.latency_ms, 0);
      tests += runs.length;
      failures += suiteFailures;
      errors += suiteErrors;
      time += suiteTime;
      const body: string[] = [];
      body.push(`  <testsuite name="${xml(`${suite.name} (${provider})`)}" tests="${runs.length}" failures="${suiteFailures}" errors="${suiteErrors}" time="${seconds(suiteTime)}" timestamp="${stamp}" hostname="localhost" id="${id++}" package="${xml(suite.name)}">`);
      body.push('    <properties>', `      <property name="provider" value="${xml(provider)}"/>`, '    </properties>');
      for (const run of runs) {
        const name = `${run.case} #${run.repeat}`;
        body.push(`    <testcase name="${xml(name)}" classname="${xml(`${suite.name}.${provider}`)}" time="${seconds(run.latency_ms)}">`);
        if (run.error !== null) {
          body.push(`      <error message="${xml(run.error)}" type="run">${xml(run.failures.map((f) => `${f.expectation}: ${f.message}`).join('\n'))}</error>`);
        } else if (!run.passed) {
          body.push(`      <failure message="${xml(run.failures[0]?.message ?? 'failed')}" type="expectation">${xml(run.failures.map((f) => `${f.expectation}: ${f.message}`).join('\n'))}</failure>`);
        }
        body.push('    </testcase>');
      }
      body.push('    <system-out></system-out>', '    <system-err></system-err>', '  </testsuite>');
      blocks.push(...body);
    }
  }
  lines.push('<?xml version="1.0" encoding="UTF-8"?>');
  // Ant's JUnit.xsd gives <testsuites> no attributes; the totals go in a comment for people.
  lines.push(`<!-- toolman test: ${tests} runs, ${failures} failed, ${errors} errors, ${seconds(time)} s -->`, '<testsuites>');
  lines.push(...blocks, '</testsuites>', '');
  return lines.join('\n');
}

/** A JUnit document of properties only (`toolman test --coverage --junit FILE`): one <testsuite> with no test cases. */
export function junitPropertiesXml(name: string, properties: readonly { name: string; value: string }[], timestamp = new Date()): string {
  const stamp = timestamp.toISOString().replace(/\.\d{3}Z$/, '');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    `  <testsuite name="${xml(name)}" tests="0" failures="0" errors="0" time="0.000" timestamp="${stamp}" hostname="localhost" id="0" package="toolman">`,
    '    <properties>',
    ...properties.map((p) => `      <property name="${xml(p.name)}" value="${xml(p.value)}"/>`),
    '    </properties>',
    '    <system-out></system-out>',
    '    <system-err></system-err>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
