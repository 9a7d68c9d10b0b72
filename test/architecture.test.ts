import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/paths.js';

/**
 * The layering of DESIGN.md §1 as data: each folder of src/ and the folders it may import from
 * (besides itself). Imports point down this table only; docs/architecture.md draws it.
 */
const CORE = ['shared', 'catalog', 'select', 'search', 'providers', 'tokens', 'execute', 'session', 'validate', 'budget', 'import', 'loop', 'mcp', 'lock', 'conversation', 'agents', 'manager'];
const ALLOWED: Record<string, string[]> = {
  shared: [],
  generated: [],
  catalog: ['shared', 'generated'],
  select: ['shared', 'catalog'],
  search: ['shared', 'catalog'],
  providers: ['shared', 'catalog', 'select'],
  tokens: ['shared', 'catalog', 'providers'],
  execute: ['shared', 'catalog'],
  session: ['shared', 'catalog', 'select', 'search', 'providers', 'execute'],
  validate: ['shared', 'catalog', 'select', 'search', 'providers', 'generated'],
  budget: ['shared', 'catalog', 'select', 'providers', 'tokens', 'session'],
  import: ['shared', 'catalog', 'providers'],
  loop: ['shared', 'catalog', 'select', 'search', 'providers', 'tokens', 'execute', 'session'],
  mcp: ['shared', 'catalog', 'select', 'providers', 'execute', 'import'],
  lock: ['shared', 'catalog', 'mcp'],
  conversation: ['shared', 'catalog', 'select', 'search', 'providers', 'tokens', 'execute', 'session', 'loop', 'mcp'],
  agents: ['shared', 'catalog', 'select', 'providers', 'tokens', 'execute', 'session', 'loop', 'conversation'],
  manager: CORE.filter((f) => f !== 'manager'),
  '(root)': CORE,
  testing: [...CORE],
  serve: [...CORE],
  repl: [...CORE],
  cli: [...CORE, 'repl', 'testing', 'serve'],
};
/**
 * The drivers reach the core through its facade only: `manager/` (the ToolManager, and the
 * stateless facade modules beside it) and `conversation/`, plus `shared/`, the base every folder
 * builds on. Types may come from anywhere below (`import type` carries no code).
 */
const DRIVERS = new Set(['cli', 'repl', 'testing', 'serve']);
const FACADE = new Set(['manager', 'conversation', 'shared', 'cli', 'repl', 'testing', 'serve']);
/** Packages that only some folders may import: provider SDKs in their provider's folder, UI in the drivers. */
const PACKAGE_HOMES: { pattern: RegExp; homes: string[] }[] = [
  { pattern: /^openai(\/|$)/, homes: ['providers/openai'] },
  { pattern: /^@anthropic-ai\/sdk(\/|$)/, homes: ['providers/anthropic'] },
  { pattern: /^@google\/genai(\/|$)/, homes: ['providers/gemini'] },
  // The v1 SDK: no source file any more (tests keep it to check `serve` against 2025-era clients).
  { pattern: /^@modelcontextprotocol\/sdk(\/|$)/, homes: [] },
  // The v2 client: the client side only.
  { pattern: /^@modelcontextprotocol\/client(\/|$)/, homes: ['mcp'] },
  // The SDK's v2 server side (`toolman serve`, both protocol eras) and the JWT checks of its resource server.
  { pattern: /^@modelcontextprotocol\/(server|node)(\/|$)/, homes: ['serve'] },
  { pattern: /^jose(\/|$)/, homes: ['serve'] },
  { pattern: /^@a2a-js\/sdk(\/|$)/, homes: ['agents'] },
  { pattern: /^(commander|cli-table3)(\/|$)/, homes: ['cli'] },
  { pattern: /^(ink|react|ink-[a-z-]+)(\/|$)/, homes: ['repl'] },
  // The REPL's Markdown: marked's lexer (loaded when the REPL first shows an answer) and the widths it lays out by.
  { pattern: /^(marked|string-width)(\/|$)/, homes: ['repl'] },
];

/**
 * Every module a TypeScript file imports: static imports and exports (`import x from`, `import
 * type`, `import 'side-effect'`, `export … from`), over several lines, with either quote, and
 * dynamic `import()`. Types included: the layering table holds for them too.
 */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const statics = /^\s*(?:import|export)\b(?:[^'";]*?\bfrom\s*)?\s*(['"])([^'"\n]+)\1/gm;
  const dynamic = /\bimport\s*\(\s*(['"`])([^'"`\n]+)\1\s*\)/g;
  for (const match of text.matchAll(statics)) found.push(match[2]!);
  for (const match of text.matchAll(dynamic)) found.push(match[2]!);
  return found;
}

/** What a file's code (not its types) loads: each module it imports at run time, and whether an import() has no literal module. */
export interface ValueImports {
  specs: Set<string>;
  computed: boolean;
}

/**
 * Which imports carry code is the compiler's call, not the text's: esbuild, as the build runs it
 * (verbatimModuleSyntax), erases exactly the type-only imports and resolves every other import,
 * however it is written (`import type from` is a default import named `type`; an import need not
 * start a line; `import { type X }` still loads its module; literals joined with `+` are folded)
 * and leaves an import() whose module is not a literal as written. Each import is recorded and
 * left external, so only the files given are read.
 */
export async function valueImports(files: readonly SourceText[]): Promise<Map<string, ValueImports>> {
  const found = new Map<string, ValueImports>(files.map((f) => [f.path, { specs: new Set(), computed: false }]));
  const byPath = new Map(files.map((f) => [f.path, f.text]));
  const result = await build({
    entryPoints: files.map((f) => `src:${f.path}`),
    bundle: true,
    write: false,
    outdir: '/nonexistent',
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, jsx: 'react-jsx' } },
    plugins: [
      {
        name: 'record-imports',
        setup(b) {
          b.onResolve({ filter: /^src:/ }, (args) => ({ path: args.path.slice(4), namespace: 'src' }));
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.namespace === 'src' && args.kind !== 'entry-point') found.get(args.importer)?.specs.add(args.path);
            return { path: args.path, external: true };
          });
          b.onLoad({ filter: /.*/, namespace: 'src' }, (args) => ({ contents: byPath.get(args.path) ?? '', loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts' }));
        },
      },
    ],
  });
  // An import() esbuild could not resolve to a literal stays in its output as written (esbuild
  // prints `import(` with no space and string literals in double quotes).
  files.forEach((file, i) => {
    const code = result.outputFiles[i]?.text ?? '';
    if (/\bimport\((?!"[^"\n]*"\))/.test(code)) found.get(file.path)!.computed = true;
  });
  return found;
}

/** The top folder of a file under src/ (`(root)` for src/index.ts). */
function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length === 1 ? '(root)' : parts[0]!;
}

export interface SourceText {
  /** Path relative to src/, with forward slashes. */
  path: string;
  text: string;
}

/** Every import that breaks the table: the file, what it imports, and why it may not. */
export function boundaryViolations(files: readonly SourceText[], values: ReadonlyMap<string, ValueImports>): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const from = folderOf(file.path);
    const allowed = ALLOWED[from];
    if (!allowed) {
      violations.push(`${file.path}: folder "${from}" is not in the layering table`);
      continue;
    }
    if (file.path.endsWith('.tsx') && from !== 'repl') violations.push(`${file.path}: .tsx files belong in repl/`);
    const loads = values.get(file.path) ?? { specs: new Set<string>(), computed: false };
    if (DRIVERS.has(from) && loads.computed) violations.push(`${file.path}: a computed import() in a driver cannot be checked against the facade`);
    // Everything written (types too) against the table; what carries code against the facade rule.
    for (const { spec, typeOnly } of [...new Set([...importsOf(file.text), ...loads.specs])].map((spec) => ({ spec, typeOnly: !loads.specs.has(spec) }))) {
      if (spec.startsWith('.')) {
        const target = relative('/src', resolve('/src', dirname(file.path), spec)).split('\\').join('/');
        if (target.startsWith('..')) {
          violations.push(`${file.path} imports ${spec}, outside src/`);
          continue;
        }
        const to = folderOf(target);
        if (to !== from && !allowed.includes(to)) violations.push(`${file.path} imports ${spec}: ${from}/ may not import ${to}/`);
        else if (DRIVERS.has(from) && !typeOnly && !FACADE.has(to)) violations.push(`${file.path} imports ${spec}: a driver reaches ${to}/ only through the facade (manager/, conversation/), or with import type`);
        continue;
      }
      for (const { pattern, homes } of PACKAGE_HOMES) {
        if (pattern.test(spec) && !homes.some((home) => file.path.startsWith(home + '/'))) violations.push(`${file.path} imports ${spec}, which only ${homes.join(', ')}/ may import`);
      }
    }
  }
  return violations;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const SRC = join(ROOT, 'src');
const files: SourceText[] = sources(SRC).map((path) => ({ path: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));

describe('the import scanner', () => {
  it('finds every import form', () => {
    const text = [
      `import { a } from '../x/a.js';`,
      `import b from "../x/b.js";`,
      `import type { C } from '../x/c.js';`,
      `import '../x/d.js';`,
      `export { e } from "../x/e.js";`,
      `export * from '../x/f.js';`,
      `import {\n  g,\n  h,\n} from '../x/g.js';`,
      `const m = await import('../x/i.js');`,
      `const n = await import(\n  "../x/j.js"\n);`,
      `const s = 'not an import from "../x/k.js"';`,
    ].join('\n');
    expect(importsOf(text)).toEqual(['../x/a.js', '../x/b.js', '../x/c.js', '../x/d.js', '../x/e.js', '../x/f.js', '../x/g.js', '../x/i.js', '../x/j.js']);
  });

  it('fails on an upward import, an SDK outside its folder, .tsx outside repl/, and a driver past the facade', async () => {
    const planted: SourceText[] = [
      { path: 'catalog/bad.ts', text: `import type { ToolSession } from "../session/tool-session.js";` },
      { path: 'execute/bad.ts', text: `const m = await import('../manager/tool-manager.js');` },
      { path: 'providers/gemini/bad.ts', text: `export { x } from '../../budget/budget-report.js';\nimport OpenAI from 'openai';` },
      { path: 'session/bad.tsx', text: `import { Box } from 'ink';` },
      { path: 'select/fine.ts', text: `import type { Tool } from '../catalog/types.js';` },
      { path: 'cli/commands/bad.ts', text: `import { selectTools } from '../../select/select-tools.js';\nconst x = await import('../../tokens/count-request.js');` },
      { path: 'testing/fine.ts', text: `import type { Tool } from '../catalog/types.js';\nimport { ToolManager } from '../manager/tool-manager.js';\nexport type { Catalog } from '../catalog/types.js';\nexport { ToolManager };\nconst s = 'not an import (of anything) from "../select/x.js"';\nexport { s };` },
      // Value imports written to look like type imports, or hidden mid-line, and a computed import().
      { path: 'repl/sneaky.ts', text: `import type from '../select/select-tools.js';\nconst x = 1; import { profileNames } from '../select/resolve-profile.js';\nconst m = await import('../tok' + 'ens/count-request.js');\nconst n = await import(process.argv[2]!);\nexport { type, profileNames, x, m, n };` },
    ];
    expect(boundaryViolations(planted, await valueImports(planted))).toEqual([
      'catalog/bad.ts imports ../session/tool-session.js: catalog/ may not import session/',
      'execute/bad.ts imports ../manager/tool-manager.js: execute/ may not import manager/',
      'providers/gemini/bad.ts imports ../../budget/budget-report.js: providers/ may not import budget/',
      'providers/gemini/bad.ts imports openai, which only providers/openai/ may import',
      'session/bad.tsx: .tsx files belong in repl/',
      'session/bad.tsx imports ink, which only repl/ may import',
      'cli/commands/bad.ts imports ../../select/select-tools.js: a driver reaches select/ only through the facade (manager/, conversation/), or with import type',
      'cli/commands/bad.ts imports ../../tokens/count-request.js: a driver reaches tokens/ only through the facade (manager/, conversation/), or with import type',
      'repl/sneaky.ts: a computed import() in a driver cannot be checked against the facade',
      'repl/sneaky.ts imports ../select/select-tools.js: a driver reaches select/ only through the facade (manager/, conversation/), or with import type',
      'repl/sneaky.ts imports ../select/resolve-profile.js: a driver reaches select/ only through the facade (manager/, conversation/), or with import type',
      'repl/sneaky.ts imports ../tokens/count-request.js: a driver reaches tokens/ only through the facade (manager/, conversation/), or with import type',
    ]);
  });
});

describe('layering (DESIGN.md §1)', () => {
  it('every import in src/ points down the layering table; drivers load code only from the facade', async () => {
    expect(boundaryViolations(files, await valueImports(files))).toEqual([]);
  });

  it('never prints or exits from the core', () => {
    const core = files.filter((f) => !['cli', 'repl', 'testing'].includes(folderOf(f.path)));
    // module-worker-script.ts is the worker thread's own JavaScript (as text): it catches what a module prints, so toolman never prints it.
    const offenders = core.filter((f) => f.path !== 'execute/runners/module-worker-script.ts' && /process\.exit|console\.|process\.std(out|err)/.test(f.text));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it('calls process.exit nowhere in src (only bin/toolman.js decides the exit)', () => {
    expect(files.filter((f) => /process\.exit\(/.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
