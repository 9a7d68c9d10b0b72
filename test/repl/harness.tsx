import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render as inkRender } from 'ink';
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import type { Recording } from '../../src/conversation/conversation-options.js';
import type { TranscriptHistory } from '../../src/conversation/transcript-history.js';
import { ToolManager } from '../../src/manager/tool-manager.js';
import type { ProviderName } from '../../src/providers/types.js';
import { ReplApp } from '../../src/repl/repl-app.js';
import type { ReplContext } from '../../src/repl/repl-context.js';
import { ReplController } from '../../src/repl/repl-controller.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ReplMcpQuestions } from '../../src/repl/mcp-questions.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { ROOT } from '../helpers/paths.js';

export const REPL_CATALOG = 'test/repl/fixtures/repl.yaml';

/** Keys as a terminal sends them. */
export const KEY = {
  enter: '\r',
  up: '\u001b[A',
  down: '\u001b[B',
  left: '\u001b[D',
  backspace: '\u007f',
  ctrlC: '\u0003',
  ctrlO: '\u000f',
  escape: '\u001b',
} as const;

export interface HarnessOptions {
  catalog?: string;
  /** The environment `${env:}` values come from (and the secrets redacted). */
  env?: Record<string, string>;
  provider?: ProviderName;
  profile?: string;
  force?: string[];
  yes?: boolean;
  color?: boolean;
  /** Terminal width; 100 (ink-testing-library's) by default. */
  columns?: number;
  transcript?: string;
  notices?: string[];
  /** A recording to replay (its user messages wait in the input line). */
  recording?: Recording;
  /** Recorded user messages, as a replay has them, over a live (scripted) model. */
  initialPrompts?: string[];
  cwd?: string;
  signal?: AbortSignal;
  /** The model's name (a recording's header sets it); 'test-model' by default. */
  model?: string;
  /** The wait before a key answers an approval question (the controller's default otherwise). */
  approvalGuardMs?: number;
  /** A conversation read back from a transcript (`chat --resume`). */
  resume?: TranscriptHistory;
  /** What MCP servers ask during a request is asked in the REPL, as `toolman chat` sets it up. */
  mcpQuestions?: boolean;
}

export interface Harness {
  controller: ReplController;
  context: ReplContext;
  manager: ToolManager;
  /** Everything drawn so far: the scrollback and the live part (ink's debug frames). */
  frame(): string;
  frames(): string[];
  /** Writes to the terminal's input, as typing or a key would. */
  write(data: string): Promise<void>;
  /** Types a line and presses Enter. */
  send(line: string): Promise<void>;
  waitFor(what: string | RegExp | (() => boolean), timeoutMs?: number): Promise<void>;
  /** Waits for the running turn to end. */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The REPL over the real ChatLoop, session and executor, talking to the scripted model server,
 * drawn by ink into a fake terminal (ink-testing-library's, or one of another width).
 */
export async function startRepl(server: ModelServer, options: HarnessOptions = {}): Promise<Harness> {
  const context = await openContext(server, options);
  const { manager } = context;
  const controller = new ReplController(context, { cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'toolman-repl-')), exitGraceMs: 2000, ...(options.approvalGuardMs !== undefined ? { approvalGuardMs: options.approvalGuardMs } : {}) });
  const tree = <ReplApp controller={controller} color={options.color ?? false} />;
  const app = options.columns ? renderAt(tree, options.columns) : render(tree);
  controller.start();
  // Ink turns raw mode on and starts listening in an effect: let it run.
  await pause(20);
  const frame = () => app.lastFrame() ?? '';
  let closed = false;
  const waitFor: Harness['waitFor'] = async (what, timeoutMs = 8000) => {
    const test = typeof what === 'function' ? what : typeof what === 'string' ? () => frame().includes(what) : () => what.test(frame());
    const started = Date.now();
    while (!test()) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${String(what)}; the screen:\n${frame()}`);
      await pause(10);
    }
  };
  const write = async (data: string) => {
    app.stdin.write(data);
    await pause(5);
  };
  return {
    controller,
    context,
    manager,
    frame,
    frames: () => app.frames,
    write,
    send: async (line) => {
      await write(line);
      await write(KEY.enter);
    },
    waitFor,
    idle: (timeoutMs) => waitFor(() => !controller.state.running, timeoutMs),
    // Once: a test may close a REPL itself (to start another on its transcript), and its testbed closes it again.
    close: async () => {
      if (closed) return;
      closed = true;
      app.unmount();
      await manager.close();
    },
  };
}

/** What `toolman chat` opens for the REPL, over the scripted model server: a conversation through the facade. */
export async function openContext(server: ModelServer, options: HarnessOptions = {}): Promise<ReplContext> {
  const provider = options.provider ?? 'openai';
  // The key and the base URL come from the environment, as they do for `toolman chat`.
  const env = { OPENAI_API_KEY: 'sk-repl-harness-key-0001', ANTHROPIC_API_KEY: 'sk-ant-repl-harness-key-0001', OPENAI_BASE_URL: `${server.url}/v1`, ANTHROPIC_BASE_URL: server.url, ...options.env };
  const mcpQuestions = options.mcpQuestions ? new ReplMcpQuestions() : undefined;
  const manager = await ToolManager.open({ catalogs: [options.catalog ?? REPL_CATALOG], cwd: ROOT, requireValid: 'all', env, ...(mcpQuestions ? { mcpInteraction: mcpQuestions } : {}) });
  const conversation = await manager.conversation({
    provider,
    model: options.model ?? 'test-model',
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.force ? { force: options.force } : {}),
    approve: async () => (options.yes ? 'approve' : 'decline'),
    ...(options.transcript ? { transcript: { file: options.transcript } } : {}),
    ...(options.recording ? { connection: { mode: 'replay' as const, recording: options.recording } } : {}),
    ...(options.resume ? { resume: options.resume } : {}),
  });
  conversation.notices.push(...(options.notices ?? []));
  conversation.recordedPrompts.push(...(options.initialPrompts ?? []));
  return { manager, conversation, yes: options.yes ?? false, ...(mcpQuestions ? { mcpQuestions } : {}), ...(options.signal ? { signal: options.signal } : {}) };
}

/** Ink into a fake terminal `columns` wide (ink-testing-library's is 100). */
/** A fake terminal's output: every write kept. */
export class FakeStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  rows = 40;
  constructor(readonly columns = 100) {
    super();
  }
  write = (frame: string) => {
    this.frames.push(frame);
    return true;
  };
}

/** A fake terminal's input in raw mode: `write` is a key or a run of text. */
export class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write = (data: string) => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = () => {
    const data = this.data;
    this.data = null;
    return data;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

function renderAt(tree: ReactElement, columns: number) {
  const stdout = new FakeStdout(columns);
  const stdin = new FakeStdin();
  const instance = inkRender(tree, { stdout: stdout as never, stderr: new FakeStdout(columns) as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false });
  return { stdin, frames: stdout.frames, lastFrame: () => stdout.frames.at(-1), unmount: () => instance.unmount() };
}

/**
 * The usual set-up of a REPL test file: one scripted model server for the file, and the REPLs a
 * test starts (`start`, with the file's `defaults` under its own options) closed after it. Call at
 * the top level of the file.
 */
export function replTestbed(defaults: HarnessOptions = {}): { readonly server: ModelServer; start(options?: HarnessOptions): Promise<Harness> } {
  let server: ModelServer | undefined;
  let open: Harness[] = [];
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server?.close());
  afterEach(async () => {
    for (const h of open) await h.close();
    open = [];
  });
  const started = () => {
    if (!server) throw new Error('replTestbed: the model server starts in beforeAll; use it inside a test');
    return server;
  };
  return {
    get server() {
      return started();
    },
    async start(options = {}) {
      const h = await startRepl(started(), { ...defaults, ...options });
      open.push(h);
      return h;
    },
  };
}
