import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { readRegularFile } from '../../shared/read-file.js';
import { PROVIDER_LABELS } from '../../manager/facts.js';
import { countRequest, exactCounter, requestShapeRefusal } from '../../manager/token-counts.js';
import type { ProviderName } from '../../providers/types.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { parseJsonText } from '../../shared/json-text.js';
import { jsonDocument } from '../output/json-document.js';

export interface TokensCommandOptions {
  file: string;
  provider?: ProviderName;
  model?: string;
  exact?: boolean;
  json?: boolean;
}

/** `toolman tokens REQUEST.json --provider P`: a whole request body's input tokens. */
export async function tokensCommand(options: TokensCommandOptions, io: CliIO): Promise<ExitCode> {
  // A request body: a regular file within the default size limit (FILE_UNREADABLE otherwise).
  const text = readRegularFile(options.file, { cwd: io.cwd });
  const body = parseJsonText(text, options.file);
  const provider = options.provider ?? 'openai';
  // A body in another provider's format (Chat Completions and Responses included), or with its
  // conversation where this provider does not read it, would be counted as nonsense.
  const refusal = requestShapeRefusal(provider, body);
  if (refusal) throw new ToolmanError(ErrorCode.USAGE, `${options.file} ${refusal.message}`, { hint: refusal.hint });
  const result = await countRequest(provider, body, options.model);
  const counter = options.exact ? exactCounter(provider, result.model, io.env) : undefined;
  if (counter) {
    result.tokens = await counter(body as Record<string, unknown>);
    result.estimate = false;
    result.reasons = [];
    result.method = `${PROVIDER_LABELS[provider]} token-counting endpoint`;
    result.breakdown = { total: result.tokens };
  } else if (options.exact) {
    io.stderr.write(`note: ${PROVIDER_LABELS[provider]} has no token-counting endpoint; this is toolman's count\n`);
  }
  if (options.json) {
    io.stdout.write(jsonDocument(result) + '\n');
    return EXIT.OK;
  }
  io.stdout.write(`${result.tokens} input tokens${result.estimate ? ` (estimate: ${result.reasons.join('; ')})` : ' (exact)'} for ${provider} ${result.model}\n`);
  for (const [part, tokens] of Object.entries(result.breakdown)) io.stdout.write(`  ${part.padEnd(24)} ${tokens}\n`);
  io.stdout.write(`  method: ${result.method}\n`);
  return EXIT.OK;
}
