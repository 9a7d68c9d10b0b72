import { dump } from 'js-yaml';
import type { Diagnostic } from '../catalog/diagnostic.js';
import type { Tool } from '../catalog/types.js';
import { oneLine } from '../shared/plain-text.js';

/**
 * `toolman test init`: an editable suite drafted from a catalog, with no model. One case per tool
 * (its first example as the expected arguments, a prompt from its description and the example's
 * values), a `not_called` case per destructive tool, a disambiguation case per pair of tools the
 * confusable-tools lint flags, and `no_tool` cases. Each case carries a brief of what its prompt
 * must do, which `--model` hands a model to write the prompt as a user would.
 */
export interface DraftCase {
  /** Stable id the model's answer refers to: t1, n1, d1, z1... */
  id: string;
  kind: 'tool' | 'negative' | 'disambiguation' | 'no_tool';
  name: string;
  prompt: string;
  expect: Record<string, unknown>;
  /** What the prompt must do, for a model writing it. */
  brief: string;
  /** Why the case is there, written above it as a comment. */
  note: string;
}

export interface SuiteDraft {
  cases: DraftCase[];
}

/** The first sentence of a description (or its summary), for a prompt. */
function gist(tool: Tool): string {
  const text = oneLine(tool.summary ?? tool.description ?? tool.title ?? tool.name);
  const sentence = /^(.{12,200}?[.!?])(\s|$)/.exec(text)?.[1] ?? text.slice(0, 200);
  return sentence.replace(/[.!?]$/, '');
}

/** The example's values, as a user might mention them: `city Oslo, days 3`. */
function details(example: Record<string, unknown> | undefined): string {
  if (!example) return '';
  const parts = Object.entries(example)
    .filter(([, v]) => v !== null && typeof v !== 'object')
    .slice(0, 6)
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Plain-value arguments of an example, as `args` expects them: a subset match, so other arguments the model adds are fine. */
function argsOf(example: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!example || !Object.keys(example).length) return undefined;
  return JSON.parse(JSON.stringify(example)) as Record<string, unknown>;
}

const words = (name: string) => name.replace(/_/g, ' ');

/**
 * Pairs of tools the confusable-tools lint (TM1001, and any TM100x it adds) flags: the finding's
 * tool and each catalog tool its message names. Read from `validate()`'s findings, so the lint's
 * rule can change without this knowing how it decides.
 */
export function confusablePairs(findings: readonly Diagnostic[], tools: readonly Tool[]): [string, string][] {
  const names = new Set(tools.map((t) => t.name));
  const pairs = new Map<string, [string, string]>();
  for (const d of findings) {
    if (!/^TM100\d$/.test(d.code) || !d.tool || !names.has(d.tool)) continue;
    const mentioned = (d.message.match(/[A-Za-z0-9_.-]+/g) ?? []).filter((w) => w !== d.tool && names.has(w));
    for (const other of new Set(mentioned)) {
      const key = [d.tool, other].sort().join('\u0000');
      if (!pairs.has(key)) pairs.set(key, [d.tool, other]);
    }
  }
  return [...pairs.values()];
}

/** The draft for these tools (the selection the suite will offer, in catalog order). */
export function draftSuite(tools: readonly Tool[], pairs: readonly [string, string][]): SuiteDraft {
  const cases: DraftCase[] = [];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ask = (tool: Tool) => `Please help me with this: ${lowerFirst(gist(tool))}${details(tool.examples[0])}`;
  tools.forEach((tool, i) => {
    const args = argsOf(tool.examples[0]);
    cases.push({
      id: `t${i + 1}`,
      kind: 'tool',
      name: `uses ${tool.name}`,
      prompt: ask(tool),
      expect: { calls: [{ tool: tool.name, ...(args ? { args } : {}) }] },
      brief: `The user needs what the tool ${tool.name} does: "${gist(tool)}".${args ? ` The message must give these details: ${JSON.stringify(args)}.` : ''}`,
      note: `one case per tool: ${tool.examples.length ? 'its first example as the arguments' : 'it has no example, so no arguments are checked'}`,
    });
  });
  tools.filter((t) => t.effect === 'destructive').forEach((tool, i) => {
    const reader = tools.find((t) => t.effect === 'read' && t.category !== undefined && t.category === tool.category);
    cases.push({
      id: `n${i + 1}`,
      kind: 'negative',
      name: `does not ${words(tool.name)} unasked`,
      prompt: reader ? ask(reader) : `What does "${gist(tool)}" do? Just explain it; do not do anything yet`,
      expect: { not_called: [tool.name] },
      brief: `A request near what ${tool.name} does ("${gist(tool)}"), which is destructive, that must NOT lead to calling it: ${reader ? `the user only wants to look things up (${gist(reader)})` : 'the user only asks about it, and says not to do it yet'}.`,
      note: `${tool.name} is destructive: a case where calling it would be wrong`,
    });
  });
  pairs.forEach(([a, b], i) => {
    const tool = byName.get(a);
    const other = byName.get(b);
    if (!tool || !other) return;
    cases.push({
      id: `d${i + 1}`,
      kind: 'disambiguation',
      name: `${a} rather than ${b}`,
      prompt: ask(tool),
      expect: { calls: [{ tool: a }], not_called: [b] },
      brief: `The user needs ${a} ("${gist(tool)}"), not ${b} ("${gist(other)}"), which reads alike: the message must make clear which one is meant, without naming either tool.`,
      note: `validate flags ${a} and ${b} as confusable (TM1001): a case that tells them apart`,
    });
  });
  const chat = [
    ['greets without a tool', 'Hi! What can you help me with?', 'The user greets the assistant and asks what it can do: no tool is needed.'],
    ['thanks without a tool', "Thanks, that's all for now.", 'The user thanks the assistant and ends: no tool is needed.'],
  ] as const;
  chat.forEach(([name, prompt, brief], i) => cases.push({ id: `z${i + 1}`, kind: 'no_tool', name, prompt, expect: { no_tool: true }, brief, note: 'small talk: no tool should be called' }));
  return { cases };
}

/** Case names must be unique: a second `uses x` (an alias clash) gets a number. */
function uniqueNames(cases: readonly DraftCase[]): string[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    const base = c.name.slice(0, 190);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} (${n})`;
  });
}

const comment = (text: string) => `# ${oneLine(text)}`;
const flow = (value: unknown) => dump(value, { flowLevel: 0, lineWidth: -1, noRefs: true }).trim();

export interface SuiteTextOptions {
  name: string;
  /** The catalog, relative to the suite file. */
  catalog: string;
  profile?: string;
  provider: string;
  /** Where the prompts came from, for the header. */
  prompts: string;
  schema: string;
}

/** The suite as YAML the user edits: each case with a comment saying why it is there. */
export function suiteText(draft: SuiteDraft, options: SuiteTextOptions): string {
  const lines = [
    comment(`yaml-language-server: $schema=${options.schema}`),
    comment(`Drafted by toolman test init from ${options.catalog}; ${options.prompts}.`),
    '# Edit it: reword the prompts as your users would ask, tighten the expectations, add cases.',
    '# Run it: toolman test THIS_FILE --record recordings (live), then --replay recordings in CI.',
    `name: ${flow(options.name)}`,
    `catalog: ${flow(options.catalog)}`,
    ...(options.profile ? [`profile: ${flow(options.profile)}`] : []),
    `providers: [${flow(options.provider)}]`,
    'repeat: 1',
    'cases:',
  ];
  const names = uniqueNames(draft.cases);
  draft.cases.forEach((c, i) => {
    lines.push(`  ${comment(c.note)}`);
    lines.push(`  - name: ${flow(names[i])}`);
    lines.push(`    prompt: ${flow(c.prompt)}`);
    lines.push(`    expect: ${flow(c.expect)}`);
  });
  return lines.join('\n') + '\n';
}

/** "Current weather" → "current weather", but "URL check" stays. */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}
