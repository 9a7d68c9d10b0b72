import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startModelServer, type ModelServer, type RecordedRequest } from '../helpers/model-server.js';
import { FIXTURES } from '../helpers/paths.js';

/**
 * `toolman test --html`: one self-contained page, checked in real headless Chromium from Debian's
 * packages (/usr/bin/chromium, driven by playwright-core; CI installs it, see .ci/run): it renders
 * (the screenshot is not blank), shows every case, logs no console error, and asks the network
 * for nothing. TOOLMAN_SKIP_CHROMIUM=1 skips the browser part.
 */
const CHROMIUM = process.env.TOOLMAN_CHROMIUM ?? '/usr/bin/chromium';
const skipBrowser = process.env.TOOLMAN_SKIP_CHROMIUM === '1';
const hasChromium = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).status === 0;

let server: ModelServer;
let dir: string;
const catalog = join(FIXTURES, 'testing', 'travel.yaml');
beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'toolman-html-'));
});
afterAll(async () => server.close());
const env = () => ({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${server.url}/v1`, TOOLMAN_CACHE_DIR: 'off' });
const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';

async function htmlReport(): Promise<{ file: string; html: string; names: string[] }> {
  // The "model": get_weather for everything, and an answer that tries to inject markup.
  server.script((r) => (assistantTurns(r) === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: `<b>Oslo</b>` } }] } : { text: `${HOSTILE} it is cloudy` }));
  const names = ['weather in Oslo', 'forecast for the week', HOSTILE];
  const suite = join(dir, 'html-suite.yaml');
  writeFileSync(
    suite,
    `name: html report\ncatalog: ${JSON.stringify(catalog)}\nproviders: [openai:gpt-4o-mini]\nrepeat: 3\ncases:\n  - { name: ${JSON.stringify(names[0])}, prompt: weather in Oslo, expect: { calls: [{ tool: get_weather }] } }\n  - { name: ${JSON.stringify(names[1])}, prompt: forecast, expect: { calls: [{ tool: get_forecast }] } }\n  - { name: ${JSON.stringify(names[2])}, prompt: hi, expect: { no_tool: true } }\n`,
  );
  const file = join(dir, 'out', 'report.html');
  const run = await runBin(['test', '--suite-catalog', suite, '--html', file], { env: env() });
  expect(run.code, run.stderr).toBe(1);
  return { file, html: readFileSync(file, 'utf8'), names };
}

describe('toolman test --html (issue 22: 5)', () => {
  it('one self-contained file, 0600 in a 0700 folder, untrusted text escaped, nothing fetched', async () => {
    const { file, html } = await htmlReport();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'out')).mode & 0o777).toBe(0o700);
    expect(html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"");
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<b>Oslo/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // No address a browser would fetch: no tag with a src/href attribute, no url(), no @import.
    expect(html).not.toMatch(/<[^>]*\s(src|href)=|url\(|@import/i);
    // What the issue asks for: verdicts, bars with intervals, the confusion heat map, tokens and cost, the model's calls.
    expect(html).toContain('class="badge bad">failed');
    expect(html).toContain('95% interval');
    expect(html).toMatch(/Confusions \[openai:gpt-4o-mini\][\s\S]*get_forecast[\s\S]*get_weather/);
    expect(html).toContain('tokens in');
    expect(html).toContain("The model's calls");
  });

  describe.skipIf(skipBrowser)('in headless Chromium', () => {
    it('renders: a screenshot that is not blank, every case name in the DOM, no console error, no request', async () => {
      expect(hasChromium, `Chromium is not installed at ${CHROMIUM}: apt-get install chromium (CI does), or set TOOLMAN_SKIP_CHROMIUM=1`).toBe(true);
      const { file, names } = await htmlReport();
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        // The flags this machine's Chromium needs (closed network, root): see .library/env/machines/node.md.
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
        const problems: string[] = [];
        const requests: string[] = [];
        page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`${m.type()}: ${m.text()}`));
        page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
        page.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
        page.on('request', (r) => requests.push(r.url()));
        await page.goto(`file://${file}`);
        const shot = await page.screenshot({ fullPage: true, path: join(dir, 'report.png') });
        const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
        for (const name of names) expect(text).toContain(name);
        expect(await page.locator('svg').count()).toBeGreaterThanOrEqual(3);
        expect(problems).toEqual([]);
        expect(requests).toEqual([`file://${file}`]);
        expect(notBlank(shot)).toBe(true);
      } finally {
        await browser.close();
      }
    }, 60_000);
  });
});

/**
 * Whether a PNG screenshot shows something: its pixel rows (inflated from the IDAT chunks) hold
 * more than a handful of distinct byte values (a blank page is one colour plus filter bytes).
 */
function notBlank(png: Buffer): boolean {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  const chunks: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    if (type === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(chunks));
  const distinct = new Set<number>();
  for (let i = 0; i < pixels.length && distinct.size < 64; i += 7) distinct.add(pixels[i]!);
  return pixels.length > 100_000 && distinct.size >= 32;
}
