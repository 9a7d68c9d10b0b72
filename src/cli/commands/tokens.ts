import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFsError } from '../../catalog/load-catalog.js';
import { ErrorCode, ToolmanError } from '../../errors.js';
import { anthropicCountTokens } from '../../providers/anthropic/anthropic-count-tokens.js';
import { geminiCountTokens } from '../../providers/gemini/gemini-count-tokens.js';
import type { ProviderName } from '../../providers/types.js';
import { countRequest } from '../../tokens/count-request.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { credentials } from './exact-counts.js';

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
  const result = await countRequest(provider, body, options.model);
  if (options.exact && (provider === 'anthropic' || provider === 'gemini')) {
    const creds = credentials(provider, io.env);
    const request = body as Record<string, unknown>;
    result.tokens = provider === 'anthropic' ? await anthropicCountTokens({ ...request, model: result.model }, creds) : await geminiCountTokens(result.model, request, creds);
    result.estimate = false;
    result.method = `${provider === 'anthropic' ? 'Anthropic count_tokens' : 'Gemini countTokens'} endpoint`;
    result.breakdown = { total: result.tokens };
  }
  if (options.json) {
    io.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return EXIT.OK;
  }
  io.stdout.write(`${result.tokens} input tokens${result.estimate ? ' (estimate)' : ''} for ${provider} ${result.model}\n`);
  for (const [part, tokens] of Object.entries(result.breakdown)) io.stdout.write(`  ${part.padEnd(24)} ${tokens}\n`);
  io.stdout.write(`  method: ${result.method}\n`);
  return EXIT.OK;
}
