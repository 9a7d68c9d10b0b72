import { randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { isRecord } from '../shared/is-record.js';
import { plainText } from '../shared/plain-text.js';
import { MiB, readRegularFile } from '../shared/read-file.js';
import type { TestResults } from './results-document.js';

/**
 * The run history behind flaky-case detection: append-only JSON lines, one per case and provider
 * of each finished `toolman test` run, with its verdict. Kept in one file (appended to) or a
 * folder (each run adds a file of its own, which suits CI jobs that upload their history as
 * artifacts and download them all). Read back bounded and checked line by line.
 */
export interface HistoryRecord {
  toolman_history: 1;
  /** When the run finished (ISO 8601). */
  at: string;
  /** One id per run: its lines belong together. */
  run: string;
  suite: string;
  case: string;
  provider: string;
  runs: number;
  passes: number;
  /** The case's verdict against its min_pass_rate. */
  ok: boolean;
}

/** Where the history is: a file, or a folder of files. */
export interface HistoryPlace {
  path: string;
  folder: boolean;
}

/** `--history PATH`: a folder when it is one (or ends with /), else a file; default: next to the baseline (`b.json` → `b.history.jsonl`). */
export function historyPlace(given: string | undefined, baseline: string | undefined, cwd: string): HistoryPlace | undefined {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    let folder = /[\\/]$/.test(given);
    try {
      folder ||= statSync(path).isDirectory();
    } catch {
      // Made when first written.
    }
    return { path, folder };
  }
  if (baseline === undefined) return undefined;
  const file = resolve(cwd, baseline);
  return { path: join(dirname(file), `${basename(file, extname(file))}.history.jsonl`), folder: false };
}

export function historyRecords(results: TestResults, at = new Date()): HistoryRecord[] {
  const run = randomUUID();
  const stamp = at.toISOString();
  return results.suites.flatMap(({ plan, report }) => report.cases.map((row) => ({ toolman_history: 1 as const, at: stamp, run, suite: plan.name, case: row.case, provider: row.provider, runs: row.runs, passes: row.passes, ok: row.ok })));
}

export const historyText = (records: readonly HistoryRecord[]) => records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '');

/** The file a folder history gets for this run: sortable by time, unique. */
export function historyFileFor(place: HistoryPlace, at = new Date()): string {
  return place.folder ? join(place.path, `${at.toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.jsonl`) : place.path;
}

/** The history may grow for years; past this it is time to start a new one (said so). */
export const MAX_HISTORY_BYTES = 64 * MiB;
const MAX_HISTORY_FILES = 10_000;

/** Every record of the history, oldest first; nothing when it does not exist yet. Bad lines are errors with their file and line. */
export function readHistory(place: HistoryPlace): HistoryRecord[] {
  let files: string[];
  if (place.folder) {
    let names: string[];
    try {
      names = readdirSync(place.path).filter((n) => n.endsWith('.jsonl')).sort();
    } catch {
      return [];
    }
    if (names.length > MAX_HISTORY_FILES) throw new ToolmanError(ErrorCode.USAGE, `the history folder ${plainText(place.path)} has ${names.length} files, over ${MAX_HISTORY_FILES}`, { hint: 'move the old ones away: flaky cases are judged on the latest runs only' });
    files = names.map((n) => join(place.path, n));
  } else {
    try {
      statSync(place.path);
    } catch {
      return [];
    }
    files = [place.path];
  }
  const records: HistoryRecord[] = [];
  let total = 0;
  for (const file of files) {
    const text = readRegularFile(file, { maxBytes: MAX_HISTORY_BYTES, label: 'history' });
    total += text.length;
    if (total > MAX_HISTORY_BYTES) throw new ToolmanError(ErrorCode.USAGE, `the history ${plainText(place.path)} is over ${MAX_HISTORY_BYTES / MiB} MiB`, { hint: 'start a new one (--history NEWFILE): flaky cases are judged on the latest runs only' });
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      records.push(parseRecord(line, `${plainText(file)}:${i + 1}`));
    });
  }
  return records.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function parseRecord(line: string, where: string): HistoryRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw bad(where, 'not a JSON line');
  }
  if (!isRecord(value) || value.toolman_history !== 1) throw bad(where, 'not a toolman history record ({"toolman_history": 1, ...})');
  for (const key of ['at', 'run', 'suite', 'case', 'provider'] as const) if (typeof value[key] !== 'string' || (value[key] as string).length > 1000) throw bad(where, `"${key}" must be text`);
  if (Number.isNaN(Date.parse(value.at as string))) throw bad(where, '"at" must be a date (ISO 8601)');
  for (const key of ['runs', 'passes'] as const) if (typeof value[key] !== 'number' || !Number.isInteger(value[key]) || (value[key] as number) < 0) throw bad(where, `"${key}" must be a whole number`);
  if (typeof value.ok !== 'boolean') throw bad(where, '"ok" must be true or false');
  return value as unknown as HistoryRecord;
}

const bad = (where: string, message: string) => new ToolmanError(ErrorCode.USAGE, `${where}: ${message}`, { hint: 'the history is append-only JSON lines that toolman test writes; remove or fix the line' });

/** A case whose verdict flipped and flipped back within the latest runs. */
export interface FlakyCase {
  suite: string;
  case: string;
  provider: string;
  /** Its verdicts, oldest first, this run's last. */
  verdicts: boolean[];
  flips: number;
}

/** Default number of latest runs (this one included) a case's verdicts are looked at over. */
export const DEFAULT_FLAKY_WINDOW = 10;

/**
 * Flaky cases: over the latest `window` runs of each case and provider (the history's, then this
 * run's), a verdict that changed and changed back (at least two flips: pass, fail, pass or fail,
 * pass, fail). One change that stays (a case that always passed and now fails) is a step, a
 * regression or a fix, not noise: calling it flaky would let --quarantine-flaky hide the very
 * regression a baseline exists to catch. One run is never enough to call a case flaky.
 */
export function flakyCases(history: readonly HistoryRecord[], current: readonly HistoryRecord[], window = DEFAULT_FLAKY_WINDOW): FlakyCase[] {
  const byKey = new Map<string, { suite: string; case: string; provider: string; verdicts: boolean[] }>();
  for (const r of [...history, ...current]) {
    const key = `${r.suite}\u0000${r.case}\u0000${r.provider}`;
    let entry = byKey.get(key);
    if (!entry) byKey.set(key, (entry = { suite: r.suite, case: r.case, provider: r.provider, verdicts: [] }));
    entry.verdicts.push(r.ok);
  }
  const live = new Set(current.map((r) => `${r.suite}\u0000${r.case}\u0000${r.provider}`));
  const out: FlakyCase[] = [];
  for (const [key, entry] of byKey) {
    if (!live.has(key)) continue;
    const verdicts = entry.verdicts.slice(-window);
    let flips = 0;
    for (let i = 1; i < verdicts.length; i++) if (verdicts[i] !== verdicts[i - 1]) flips++;
    if (flips >= 2) out.push({ ...entry, verdicts, flips });
  }
  return out;
}
