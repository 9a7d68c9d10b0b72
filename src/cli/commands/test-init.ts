import { dirname, relative, resolve } from 'node:path';
import type { ConversationOptions } from '../../conversation/conversation-options.js';
import type { AnyToolRunner } from '../../manager/runner-kit.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import type { DraftCase, SuiteDraft } from '../../testing/suite-init.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { oneLine, plainText } from '../../shared/plain-text.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { writeReportFile } from '../output/write-report-file.js';

export interface InitOptions {
  catalog?: string[];
  output?: string;
  profile?: string;
  /** provider[:model]: a model writes the prompts. */
  model?: string;
  baseUrl?: string;
  record?: string;
  replay?: string;
  force?: boolean;
  signal?: AbortSignal;
}

/** Cases per request to the model: a 126-tool catalog makes several requests in one conversation. */
const BATCH = 40;

/**
 * `toolman test init`: drafts an editable suite for the catalog (suite-init.ts): a case per tool,
 * a `not_called` case per destructive tool, a case per confusable pair `validate` flags, `no_tool`
 * cases. With --model a model writes the prompts, through the same conversation facade as `chat`
 * (--record FILE / --replay FILE, as chat's). The draft is loaded back as a suite before it is
 * written, so what it writes always runs.
 */
export async function initCommand(options: InitOptions, io: CliIO): Promise<ExitCode> {
  if (options.record && options.replay) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay do not go together');
  if ((options.record || options.replay) && !options.model) throw new ToolmanError(ErrorCode.USAGE, `${options.record ? '--record' : '--replay'} records the model that writes the prompts: it needs --model PROVIDER[:MODEL]`);
  return withManager(
    io,
    options.catalog,
    async (manager) => {
      const { draftSuite, confusablePairs, suiteText } = await import('../../testing/suite-init.js');
      const selection = manager.select(options.profile ? { profile: options.profile } : {});
      const tools = [...selection.active, ...selection.deferred];
      if (!tools.length) throw new ToolmanError(ErrorCode.USAGE, `the ${options.profile ? `profile ${plainText(options.profile)}` : 'catalog'} offers no tools to write cases for`);
      // The confusable-tools lint, through validate's findings: its rule is its own business.
      const pairs = confusablePairs(await manager.validate(), tools);
      const draft = draftSuite(tools, pairs);
      let prompts = 'prompts drafted from each tool\'s description and first example';
      if (options.model) {
        const written = await modelPrompts(manager, draft, options, io);
        prompts = `prompts written by ${plainText(options.model)} (${written} of ${draft.cases.length}; the others drafted from descriptions)`;
      }
      const output = options.output ? resolve(io.cwd, options.output) : undefined;
      const base = output ? dirname(output) : io.cwd;
      const catalogFile = manager.rootFiles[0]!;
      const rel = (file: string) => relative(base, file).split('\\').join('/') || '.';
      const name = output ? output.replace(/^.*[\\/]/, '').replace(/\.ya?ml$/i, '') : `${plainText(manager.catalog.name ?? 'catalog')}-tests`;
      const { packageRoot } = await import('../../shared/package-root.js');
      const text = suiteText(draft, {
        name,
        catalog: rel(catalogFile),
        ...(options.profile ? { profile: options.profile } : {}),
        provider: options.model ?? 'openai',
        prompts,
        schema: rel(resolve(packageRoot(), 'schema', 'suite.schema.json')),
      });
      // What is written must load as a suite on this catalog (names, matchers, the schema).
      const { loadSuiteText } = await import('../../testing/load-suite.js');
      loadSuiteText(text, output ?? resolve(io.cwd, `${name}.yaml`), { catalog: manager.catalog });
      if (output) {
        writeReportFile(output, text, { label: '--output', mode: options.force ? 'replace' : 'new', cwd: io.cwd });
        const counts = (kind: DraftCase['kind']) => draft.cases.filter((c) => c.kind === kind).length;
        io.stderr.write(`wrote ${plainText(options.output!)}: ${draft.cases.length} cases (${counts('tool')} tools, ${counts('negative')} destructive-tool negatives, ${counts('disambiguation')} confusable pairs, ${counts('no_tool')} no-tool); ${prompts}\n`);
      } else io.stdout.write(text);
      return EXIT.OK;
    },
    { requireValid: 'all' },
  );
}

/** Asks the model for every case's prompt; returns how many it gave. Untrusted answer: bounded, cleaned, ids checked. */
async function modelPrompts(manager: ToolManager, draft: SuiteDraft, options: InitOptions, io: CliIO): Promise<number> {
  const { parseProvider } = await import('../../testing/load-suite.js');
  const target = parseProvider(options.model!);
  const { ToolFailure } = await import('../../manager/runner-kit.js');
  const refuse = async () => {
    throw new ToolFailure('toolman test init: do not call tools; answer with the JSON object of prompts');
  };
  const { readRecording } = await import('../../manager/recordings.js');
  const { readRegularFile } = await import('../../shared/read-file.js');
  const connection: ConversationOptions['connection'] = options.replay
    ? { mode: 'replay', recording: readRecording(readRegularFile(options.replay, { cwd: io.cwd, label: 'recording' }), options.replay) }
    : options.record
      ? { mode: 'record', file: resolve(io.cwd, options.record), ...(options.force ? { replace: true } : {}) }
      : { mode: 'live' };
  const conversation = await manager.conversation({
    provider: target.provider,
    model: target.model,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    connection,
    purpose: (label) => `toolman test init --model ${label}`,
    missingKeyHint: (variable) => `set ${variable}, or leave out --model (the prompts are then drafted from the descriptions)`,
    ...(options.profile ? { profile: options.profile } : {}),
    system: 'You write test prompts for an assistant that uses tools. The tools are shown so you know them; never call one. Answer only with the JSON object asked for.',
    stream: false,
    maxRounds: 2,
    // The tools are on show, not for use: any call the model makes answers with why.
    wrapRunners: (registry) => registry.with(...(['mock', 'exec', 'http', 'module', 'agent', 'mcp'] as const).map((kind) => ({ kind, run: refuse }) as unknown as AnyToolRunner)),
    approve: async () => 'decline',
  });
  let written = 0;
  try {
    for (let i = 0; i < draft.cases.length; i += BATCH) {
      const batch = draft.cases.slice(i, i + BATCH);
      const summary = await conversation.run(request(batch), { ...(options.signal ? { signal: options.signal } : {}) });
      if (summary.stop === 'error' || summary.stop === 'cancelled') throw new ToolmanError(ErrorCode.PROVIDER, `the model could not write the prompts: ${plainText(summary.message ?? summary.stop)}`, { hint: 'leave out --model to draft them from the descriptions' });
      const answers = parseAnswer(summary.answer, new Set(batch.map((c) => c.id)));
      for (const c of batch) {
        const prompt = answers.get(c.id);
        if (prompt) {
          c.prompt = prompt;
          c.note += '; prompt written by the model';
          written++;
        }
      }
      const missing = batch.filter((c) => !answers.has(c.id)).map((c) => c.id);
      if (missing.length) io.stderr.write(`warning: the model gave no usable prompt for ${missing.length} case${missing.length === 1 ? '' : 's'} (${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', ...' : ''}): drafted from the descriptions instead\n`);
    }
  } finally {
    conversation.close();
  }
  return written;
}

function request(batch: readonly DraftCase[]): string {
  return [
    'Write one realistic user message for each item below: one or two sentences, in the words a user would use, never naming a tool.',
    'Answer with only a JSON object that maps each id to its message, like {"t1": "...", "d1": "..."}.',
    '',
    ...batch.map((c) => `- ${c.id}: ${c.brief}`),
  ].join('\n');
}

/** The model's JSON object of prompts: known ids only, each a line of at most 1,000 characters with no control characters. */
export function parseAnswer(answer: string, ids: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return out;
  let value: unknown;
  try {
    value = JSON.parse(answer.slice(start, end + 1));
  } catch {
    return out;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [id, text] of Object.entries(value)) {
    if (!ids.has(id) || typeof text !== 'string') continue;
    const clean = oneLine(text).slice(0, 1000);
    if (clean) out.set(id, clean);
  }
  return out;
}
