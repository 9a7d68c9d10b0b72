// A reporter for Node's test runner (node --test --test-reporter=this-file): one JSON line per
// finished test, which run-tests.mjs reads. Node's reporter events are documented at
// https://nodejs.org/api/test.html#custom-reporters (read 2026-11-24).
export default async function* testEvents(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, details } = event.data;
    const error = details?.error;
    // A failed assertion arrives wrapped: its own message is the cause's.
    const message = event.type === 'test:fail' ? String(error?.cause?.message ?? error?.message ?? 'failed').split('\n')[0] : undefined;
    yield `${JSON.stringify({ ok: event.type === 'test:pass', name, nesting, ...(message ? { message } : {}) })}\n`;
  }
}
