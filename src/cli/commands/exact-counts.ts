import type { Catalog } from '../../catalog/types.js';
import { ErrorCode, ToolmanError } from '../../errors.js';
import type { BudgetReport } from '../../manager/budget-report.js';
import { ToolSession } from '../../manager/tool-session.js';
import { anthropicCountTokens } from '../../providers/anthropic/anthropic-count-tokens.js';
import { formatSession, formatTools } from '../../providers/format-tools.js';
import { geminiCountTokens } from '../../providers/gemini/gemini-count-tokens.js';
import { selectTools } from '../../select/select-tools.js';
import type { CliIO } from '../io.js';
import { formatOptions, type FormatFlags } from '../format-options.js';

/** The credentials --exact needs, from the environment, with the base URL override. */
export function credentials(provider: 'anthropic' | 'gemini', env: CliIO['env']) {
  const apiKey = provider === 'anthropic' ? env.ANTHROPIC_API_KEY : (env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY);
  if (!apiKey) {
    throw new ToolmanError(ErrorCode.USAGE, `--exact asks ${provider === 'anthropic' ? 'Anthropic' : 'Gemini'} for the count and needs ${provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'GEMINI_API_KEY'}`, {
      hint: 'set the key, or drop --exact for the documented estimate',
    });
  }
  const baseUrl = provider === 'anthropic' ? env.ANTHROPIC_BASE_URL : env.GEMINI_BASE_URL;
  return { apiKey, ...(baseUrl ? { baseUrl } : {}) };
}

/**
 * Eager and deferred definition totals as the provider counts them: the request with tools minus
 * the same request without (OpenAI is exact already; its figures are returned unchanged).
 */
export async function exactDefinitionTotals(catalog: Catalog, report: BudgetReport, options: FormatFlags & { profile?: string; force?: string[] }, io: CliIO): Promise<{ eager: number; deferred: number } | undefined> {
  const provider = report.provider;
  if (provider === 'openai' || provider === 'openai-responses') return undefined;
  const creds = credentials(provider, io.env);
  const format = formatOptions(catalog.format, options);
  const request = { ...(options.profile ? { profile: options.profile } : {}), force: options.force ?? [] };
  const selection = selectTools(catalog, request);
  const eagerPayload = formatTools(provider, { tools: [...selection.active, ...selection.deferred], deferred: [], toolChoice: { type: 'auto' }, options: { ...format, nativeToolSearch: undefined } }).payload;
  const deferredPayload = formatSession(provider, new ToolSession(catalog, request), 1, format).payload;
  const count = (payload: Record<string, unknown>) =>
    provider === 'anthropic' ? anthropicCountTokens({ model: report.model, ...payload }, creds) : geminiCountTokens(report.model, payload, creds);
  const [base, eager, deferred] = await Promise.all([count({}), count(eagerPayload), count(deferredPayload)]);
  return { eager: eager - base, deferred: deferred - base };
}
