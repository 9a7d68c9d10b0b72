import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { toolSummary } from '../../manager/facts.js';
import { colorEnabled, palette } from '../color.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { withManager } from '../open-manager.js';
import { clip } from '../output/clip.js';
import { jsonDocument } from '../output/json-document.js';

export interface SearchCommandOptions {
  query: string;
  catalog?: string[];
  regex?: boolean;
  limit?: string;
  profile?: string;
  json?: boolean;
}

/** `toolman search QUERY`: the same engine as the tool_search meta-tool. */
export async function searchCommand(options: SearchCommandOptions, io: CliIO): Promise<ExitCode> {
  if (options.query.trim() === '') throw new ToolmanError(ErrorCode.USAGE, 'the search query is empty', { hint: 'say what the tool should do, e.g. toolman search "refund a payment"' });
  const limit = parseLimit(options.limit);
  return withManager(io, options.catalog, async (manager) => {
    // With a profile, search what that profile can reach (active and deferred tools).
    const within = options.profile ? (({ active, deferred }) => new Set([...active, ...deferred].map((t) => t.name)))(manager.select({ profile: options.profile })) : undefined;
    const results = (await manager.search()).search(options.query, { limit, ...(options.regex ? { regex: true } : {}), ...(within ? { within } : {}) });
    if (options.json) {
      const doc = { query: options.query, mode: options.regex ? 'regex' : 'bm25', results: results.map((r) => ({ name: r.tool.name, score: r.score, matched: r.matched, summary: r.tool.summary ?? null })) };
      io.stdout.write(jsonDocument(doc) + '\n');
      return EXIT.OK;
    }
    const c = palette(colorEnabled(io, io.stdout));
    if (results.length === 0) {
      io.stdout.write(`no tools match ${JSON.stringify(options.query)}\n`);
      return EXIT.OK;
    }
    const width = Math.max(...results.map((r) => r.tool.name.length));
    results.forEach((r, i) => {
      io.stdout.write(`${String(i + 1).padStart(2)}. ${c.bold(r.tool.name.padEnd(width))}  ${r.score.toFixed(2).padStart(6)}  ${c.dim(r.matched.join(','))}\n    ${clip(toolSummary(r.tool) ?? '', 110)}\n`);
    });
    return EXIT.OK;
  });
}

export function parseLimit(value: string | undefined, fallback = 10): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new ToolmanError(ErrorCode.USAGE, `--limit must be a whole number from 1 to 1000, not ${JSON.stringify(value)}`);
  return n;
}
