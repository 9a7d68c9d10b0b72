import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBin, type CliRun } from './cli.js';
import { ROOT } from './paths.js';

/**
 * The shipped enterprise suite's first case replayed from its shipped recording, judged by other
 * expectations (`expect`, YAML under the case's `expect:`): the same suite name and case, so the
 * same recording answers and only the verdict can differ. Offline, no key.
 */
export async function replayEnterprisePolicy(expect: string): Promise<CliRun> {
  const folder = mkdtempSync(join(tmpdir(), 'toolman-enterprise-replay-'));
  cpSync(join(ROOT, 'suites', 'recordings', 'enterprise'), join(folder, 'recordings', 'enterprise'), { recursive: true });
  const indented = expect.trim().split('\n').map((line) => `      ${line}`).join('\n');
  writeFileSync(join(folder, 'suite.yaml'), `name: enterprise\nprofile: full\nproviders: [openai:gpt-4o]\ncases:\n  - name: policy questions go to the intranet\n    prompt: What is our parental leave policy?\n    expect:\n${indented}\n`);
  return runBin(['-c', join(ROOT, 'catalogs', 'enterprise.yaml'), 'test', join(folder, 'suite.yaml'), '--replay', join(folder, 'recordings'), '--json'], { env: { OPENAI_API_KEY: '' } });
}
