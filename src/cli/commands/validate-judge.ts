import { resolve } from 'node:path';
import type { ModelConnection } from '../../conversation/conversation-options.js';
import { readRecording } from '../../manager/recordings.js';
import { judgeCatalog, parseJudgeSpec, type JudgeSpec } from '../../manager/judge.js';
import type { ToolManager } from '../../manager/tool-manager.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { readRegularFile } from '../../shared/read-file.js';
import type { CatalogQuality, ToolQuality } from '../../validate/description-quality.js';
import type { CliIO } from '../io.js';

/** `validate --judge PROVIDER:MODEL`, `--record FILE`, `--replay FILE`, as given. */
export interface JudgeFlags {
  judge?: string;
  record?: string;
  replay?: string;
}

/** A judge made ready before any catalog is opened: usage errors come first, nothing paid for. */
export interface ValidateJudge {
  /** Grades the tools (names of the manager's catalog) in place: each gets its `judge`. */
  grade(manager: ToolManager, tools: ToolQuality[]): Promise<void>;
  /** The grader and the mean of its grades, for the catalog's quality. */
  summary(tools: readonly ToolQuality[]): CatalogQuality['judge'];
}

/**
 * Checks the judge's flags and reads a --replay recording. `--replay FILE` implies the judge
 * (its provider and model are the recording's; a --judge that names others is said and
 * ignored); `--record FILE` needs --judge. A recording holds one conversation, so --record and
 * --replay judge one catalog (one root) at a time.
 */
export function judgeSetup(flags: JudgeFlags, roots: readonly (readonly string[])[], io: CliIO): ValidateJudge | undefined {
  if (flags.judge === undefined && flags.replay === undefined) {
    if (flags.record !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--record records the judge\'s conversation: it needs --judge PROVIDER:MODEL');
    return undefined;
  }
  if (flags.record !== undefined && flags.replay !== undefined) throw new ToolmanError(ErrorCode.USAGE, '--record and --replay: a replay answers from its recording, which it does not write again');
  if ((flags.record !== undefined || flags.replay !== undefined) && roots.length > 1) {
    throw new ToolmanError(ErrorCode.USAGE, `${flags.record !== undefined ? '--record' : '--replay'} with ${roots.length} catalogs: a recording holds the judge's conversation with one catalog`, { hint: 'judge one catalog file at a time, or give them together with -c (one catalog)' });
  }
  let spec: JudgeSpec | undefined = flags.judge !== undefined ? parseJudgeSpec(flags.judge) : undefined;
  let connection: ModelConnection;
  if (flags.replay !== undefined) {
    const recording = readRecording(readRegularFile(flags.replay, { cwd: io.cwd, label: '--replay' }), flags.replay);
    connection = { mode: 'replay', recording };
    // The conversation says so when --judge names another model (its notices); the recording's is used.
    if (spec && spec.provider === recording.header.provider && spec.model === recording.header.model) spec = undefined;
  } else {
    connection = flags.record !== undefined ? { mode: 'record', file: resolve(io.cwd, flags.record) } : { mode: 'live' };
  }
  let notified = false;
  return {
    async grade(manager, tools) {
      if (!tools.length) return;
      if (!notified && connection.mode !== 'replay') io.stderr.write(`judge: grading ${tools.length} tool description${tools.length === 1 ? '' : 's'} with ${spec!.provider}:${spec!.model}…\n`);
      notified = true;
      const judgment = await judgeCatalog(manager, tools.map((t) => t.tool), { spec, connection });
      for (const notice of judgment.notices) io.stderr.write(`${notice}\n`);
      for (const tool of tools) {
        const grade = judgment.grades.get(tool.tool);
        if (grade) tool.judge = grade;
      }
    },
    summary(tools) {
      const judged = tools.filter((t) => t.judge !== undefined);
      if (!judged.length) return undefined;
      const scores = judged.flatMap((t) => (t.judge && 'score' in t.judge ? [t.judge.score] : []));
      return { model: judged[0]!.judge!.model, score: scores.length ? Math.round(scores.reduce((a, b) => a + b, 0) / scores.length) : null, graded: scores.length, not_graded: judged.length - scores.length };
    },
  };
}
