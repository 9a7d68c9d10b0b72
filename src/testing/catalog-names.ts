import type { Expectations, Suite, SuiteCase } from './suite-types.js';

/**
 * The suite with every tool it names (expected calls, not_called, call_count, approvals, stubs,
 * forced tools, answer.cites) turned into the catalog's name for that tool, as `canonical` resolves aliases.
 * Calls are reported by catalog name (the session's call record), so an expectation written with
 * an alias (`search_email`, kept when the tool became `find_email`) matches the renamed tool's
 * calls. Patterns with wildcards stay as written; names the catalog does not know stay too.
 */
export function withCatalogNames(suite: Suite, canonical: (name: string) => string | undefined): Suite {
  const name = (n: string) => canonical(n) ?? n;
  const expectations = (e: Expectations | undefined): Expectations | undefined =>
    e && {
      ...e,
      ...(e.calls ? { calls: e.calls.map((c) => ({ ...c, tool: name(c.tool) })) } : {}),
      ...(e.not_called ? { not_called: e.not_called.map((p) => (/[*?]/.test(p) ? p : name(p))) } : {}),
      ...(e.call_count ? { call_count: Object.fromEntries(Object.entries(e.call_count).map(([tool, bound]) => [tool === '*' ? tool : name(tool), bound])) } : {}),
      ...(e.approvals ? { approvals: e.approvals.map(name) } : {}),
      ...(e.answer?.cites ? { answer: { ...e.answer, cites: e.answer.cites.map((t) => (t === '*' ? t : name(t))) } } : {}),
    };
  const testCase = (c: SuiteCase): SuiteCase => {
    const expect = expectations(c.expect);
    return {
      ...c,
      turns: c.turns.map((t) => {
        const turnExpect = expectations(t.expect);
        return { ...t, ...(turnExpect ? { expect: turnExpect } : {}) };
      }),
      ...(expect ? { expect } : {}),
      stubs: c.stubs.map((s) => ({ ...s, tool: name(s.tool) })),
      force: c.force.map(name),
    };
  };
  return { ...suite, cases: suite.cases.map(testCase) };
}
