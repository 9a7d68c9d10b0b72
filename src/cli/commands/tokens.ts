import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFsError } from '../../shared/fs-errors.js';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';
import { exactCounter } from '../../providers/exact-count.js';
import { PROVIDER_LABELS, type ProviderName } from '../../providers/types.js';
import { countRequest } from '../../tokens/count-request.js';
import { requestShape } from '../../tokens/request-shape.js';
import { isRecord } from '../../shared/is-record.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';

export interface TokensCommandOptions {
  file: string;
  provider?: ProviderName;
  model?: string;
  exact?: boolean;
  json?: boolean;
}

/** `toolman tokens REQUEST.json --provider P`: a whole request body's input tokens. */
export async function tokensCommand(options: TokensCommandOptions, io: CliIO): Promise<ExitCode> {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(resolve(io.cwd, options.file), 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw new ToolmanError(ErrorCode.USAGE, `${options.file} is not valid JSON: ${error.message}`);
    throw new ToolmanError(ErrorCode.FILE_UNREADABLE, `cannot read ${options.file}: ${describeFsError(error)}`);
  }
  const provider = options.provider ?? 'openai';
  const shape = isRecord(body) ? requestShape(body) : undefined;
  // Chat and Responses bodies share a provider family; any other mismatch makes the count meaningless.
  const family = (p: string) => (p.startsWith('openai') ? 'openai' : p);
  if (shape && family(shape.provider) !== family(provider)) {
    throw new ToolmanError(ErrorCode.USAGE, `${options.file} looks like a ${PROVIDER_LABELS[shape.provider]} request (${shape.because}), not ${PROVIDER_LABELS[provider]}`, {
      hint: `pass --provider ${shape.provider}`,
    });
  }
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
    io.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return EXIT.OK;
  }
  io.stdout.write(`${result.tokens} input tokens${result.estimate ? ` (estimate: ${result.reasons.join('; ')})` : ' (exact)'} for ${provider} ${result.model}\n`);
  for (const [part, tokens] of Object.entries(result.breakdown)) io.stdout.write(`  ${part.padEnd(24)} ${tokens}\n`);
  io.stdout.write(`  method: ${result.method}\n`);
  return EXIT.OK;
}
