/**
 * Loads ink the way `runRepl` does (src/repl/run-repl.tsx, loadInk): with CI unset. ink decides
 * once, when it first loads, that it runs in CI when CI is set, and then draws only static output
 * until exit. A test file that drives `runRepl` on a fake terminal imports this first, before
 * anything else loads ink; otherwise its frames stay empty on a CI machine.
 */
const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
try {
  await import('ink');
} finally {
  for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
}
