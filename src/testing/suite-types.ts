import type { ChatProvider } from '../providers/model-clients.js';
import type { SourceLocation } from '../shared/errors.js';

/** A matcher for one value, as written in a suite (`contains: standup`, `{ one_of: [a, b] }`, a plain value). */
export type ValueMatcher =
  | { kind: 'literal'; value: unknown }
  | { kind: 'all'; matchers: ValueMatcher[] }
  | { kind: 'equals'; value: unknown }
  | { kind: 'contains'; text: string }
  | { kind: 'not_contains'; text: string }
  | { kind: 'regex'; pattern: string }
  | { kind: 'includes'; item: ValueMatcher }
  | { kind: 'one_of'; values: unknown[] }
  | { kind: 'schema'; schema: Record<string, unknown> }
  | { kind: 'exists'; exists: boolean }
  /** `matches_output_schema: true`: a tool's result validates against that tool's `output_schema`. */
  | { kind: 'output_schema' }
  | { kind: 'object'; properties: Record<string, ValueMatcher> };

export interface CallExpectation {
  tool: string;
  args?: Record<string, ValueMatcher>;
  /** The expectation as written, for messages. */
  source: unknown;
}

export type CallOrder = 'in_order' | 'any_order' | 'subset' | 'exact';

export interface CountBound {
  min?: number;
  max?: number;
}

export interface Expectations {
  calls?: CallExpectation[];
  order: CallOrder;
  not_called?: string[];
  no_tool?: boolean;
  call_count?: Record<string, CountBound>;
  rounds?: CountBound;
  answer?: { contains?: string[]; not_contains?: string[]; regex?: string; equals?: string; cites?: string[] };
  approvals?: string[];
  tokens?: { input?: number; output?: number; total?: number };
  stop?: string;
  /** The verdict each named evaluation must reach (`evaluations: {no_pii: pass}`). */
  evaluations?: Record<string, 'pass' | 'fail' | 'error'>;
}

export interface Stub {
  tool: string;
  when?: Record<string, ValueMatcher>;
  result?: unknown;
  error?: string;
  /** For a `mode: stateful` tool: what it yields, in order, before its result (or error). */
  yields?: unknown[];
}

/**
 * The case's answer to what a tool's MCP server asks during a call (`elicitation:`): the first
 * entry whose `when` matches the question answers it.
 */
export interface ElicitationStub {
  when?: {
    server?: ValueMatcher;
    message?: ValueMatcher;
    mode?: 'form' | 'url';
    /** Field names the form must ask, every one. */
    fields?: string[];
    /** Matched against the requested schema (`{properties, required}`), objects as a subset. */
    schema?: ValueMatcher;
    url?: ValueMatcher;
  };
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface SuiteTurn {
  prompt: string;
  expect?: Expectations;
}

export interface SuiteCase {
  name: string;
  turns: SuiteTurn[];
  expect?: Expectations;
  stubs: Stub[];
  /** Answers to what the tools' MCP servers ask during the case. */
  elicitation: ElicitationStub[];
  minPassRate: number;
  repeat: number;
  profile?: string;
  force: string[];
  approve: boolean;
  system?: string;
  location: SourceLocation;
}

export interface ProviderTarget {
  provider: ChatProvider;
  model: string;
  /** `provider:model`, as reports and recordings name it. */
  label: string;
}

export interface Prices {
  /** US dollars per million tokens. */
  [model: string]: { input: number; output: number; cached_input?: number };
}

export interface Suite {
  name: string;
  file: string;
  /** Catalog files, absolute. */
  catalog: string[];
  profile?: string;
  providers: ProviderTarget[];
  system?: string;
  maxRounds?: number;
  tools: 'mock' | 'live';
  /** The suite says `tools: live`, but the run was not given --live-tools: its tools answer from mocks and stubs (errors say how to run them). */
  liveToolsWithheld?: boolean;
  stream: boolean;
  prices: Prices;
  cases: SuiteCase[];
}

/** The error of a run the command's signal stopped (Ctrl-C), or never started: not a result, left out of reports. */
export const INTERRUPTED = 'interrupted';
