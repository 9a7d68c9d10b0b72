import type { JobIds } from '../execute/job-store.js';
import type { RunnerRegistry } from '../execute/runner.js';
import type { Approver, CallEvent, SideUsage, Summariser } from '../execute/types.js';
import type { FormatOptions, ProviderName } from '../providers/types.js';
import type { SearchMode } from './tool-session.js';

/** What a conversation (the loop, the REPL, `call`, `serve`, a test case) asks for. */
export interface SessionRequest {
  profile?: string;
  force?: readonly string[];
  searchMode?: SearchMode;
  /** Defer the costliest tools until the definitions budget fits, as `defer: auto` does. */
  deferAuto?: boolean;
  /** The provider (and model) whose token costs drive automatic deferral; default openai. */
  provider?: ProviderName;
  model?: string;
  format?: FormatOptions;
  approve?: Approver;
  /** Summarises results over their limit (`truncation: summarize`); default: the manager's, when the catalog has budget.summarize. */
  summarise?: Summariser;
  /** Counts tools' own model calls (a local sub-agent's) into the owning conversation's turns. */
  countUsage?: (usage: readonly SideUsage[]) => void;
  onEvent?: (event: CallEvent) => void;
  /** How its jobs are named (execute/job-store.ts): `counted` only where no other party sees the ids; default `random`. */
  jobIds?: JobIds;
  /** Layers runners over the manager's for this session only (the test runner's stubs and mocks). */
  wrapRunners?: (runners: RunnerRegistry) => RunnerRegistry;
}
