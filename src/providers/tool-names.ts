import { createHash } from 'node:crypto';
import { META_TOOL_NAMES } from '../catalog/types.js';
import { ANTHROPIC_NAME_PATTERN } from './anthropic/anthropic-facts.js';
import { GEMINI_NAME_PATTERN, geminiName } from './gemini/gemini-facts.js';
import { OPENAI_NAME_PATTERN } from './openai/openai-facts.js';

/** Which providers refuse a tool name as written: the rule `validate`, `import` and the formatters share. */
export function nameProblems(name: string): { openaiOrAnthropic: boolean; gemini: boolean; geminiSentAs: string } {
  return { openaiOrAnthropic: !OPENAI_NAME_PATTERN.test(name) || !ANTHROPIC_NAME_PATTERN.test(name), gemini: !GEMINI_NAME_PATTERN.test(name), geminiSentAs: geminiName(name) };
}

/** A name every provider takes as it is. */
export function isProviderSafe(name: string): boolean {
  return OPENAI_NAME_PATTERN.test(name) && ANTHROPIC_NAME_PATTERN.test(name) && GEMINI_NAME_PATTERN.test(name);
}

/**
 * A name every provider accepts (valid for OpenAI, Anthropic and Gemini alike) and unused so far.
 * Dots, spaces and other characters become `_`; names over 64 characters keep their start and
 * get a short hash of the whole, so two long names that share a prefix stay distinct.
 */
export function providerSafeName(original: string, taken: Set<string>): string {
  if (isProviderSafe(original) && !taken.has(original)) {
    taken.add(original);
    return original;
  }
  let name = original.trim().replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/_+/g, '_').replace(/^_+(?=.)|_+$/g, '');
  if (name === '') name = 'tool';
  if (!/^[a-zA-Z_]/.test(name)) name = `_${name}`;
  if (name.length > 64) name = `${name.slice(0, 55).replace(/_+$/, '')}_${createHash('sha256').update(original).digest('hex').slice(0, 8)}`;
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name.slice(0, 64 - String(n).length - 1)}_${n}`;
  taken.add(candidate);
  return candidate;
}

/** Why a name had to change, for the import report. */
export function renameReason(original: string, taken: ReadonlySet<string>): string {
  if (original.length > 64) return 'longer than 64 characters';
  if (/[^a-zA-Z0-9_-]/.test(original)) return `contains ${JSON.stringify([...new Set(original.replace(/[a-zA-Z0-9_-]/g, ''))].join(''))}, which providers reject`;
  if (!/^[a-zA-Z_]/.test(original)) return 'Gemini needs a letter or _ first';
  if ((META_TOOL_NAMES as readonly string[]).includes(original)) return "the name is reserved for toolman's meta-tool";
  return taken.has(original) ? 'the name is already used by another tool' : 'not a valid provider name';
}
