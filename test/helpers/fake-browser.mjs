// A "browser" for $BROWSER in tests: GET the page without following redirects (as the conformance
// suite's harness does), then GET where it points (the loopback callback). Each visit is appended
// to $FAKE_BROWSER_LOG as a JSON line. The URL is the last argument; nothing goes through a shell.
import { appendFileSync } from 'node:fs';

const url = process.argv.at(-1);
const log = (entry) => process.env.FAKE_BROWSER_LOG && appendFileSync(process.env.FAKE_BROWSER_LOG, JSON.stringify(entry) + '\n');
try {
  const page = await fetch(url, { redirect: 'manual' });
  const location = page.headers.get('location');
  if (!location) {
    log({ url, status: page.status });
  } else {
    const back = await fetch(location);
    log({ url, status: page.status, location, callback: back.status, page: await back.text() });
  }
} catch (error) {
  log({ url, error: String(error) });
}
