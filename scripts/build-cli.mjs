// Builds the CLI into dist/cli/ as CommonJS chunks, so bin/toolman.js can give V8 the code it
// compiled on an earlier run (src/cli/code-cache.ts). Node 20 has no compile cache of its own
// (module.enableCompileCache is Node 22+) and compiles an ES module's text every time: about a
// sixth of a one-shot `chat`. V8 takes cached code for a classic script (vm.Script cachedData),
// never for an ES module, and esbuild splits code into lazily loaded chunks only in ESM output; so
// the CLI is bundled and split as ESM, then each chunk is turned into CommonJS on its own (esbuild's
// transform: imports become require(), a dynamic import() of a chunk a Promise of its require()).
// A chunk with top-level await (ink's, in the REPL's) cannot be CommonJS: it stays an ES module
// (.mjs) that imports the CommonJS chunks through Node's interop (so every module exists once), and
// the few chunks that import() it are marked so that Node compiles them itself (see NODE_COMPILES).
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { build, transform } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** First line of a chunk that keeps a real dynamic import(): code-cache.ts leaves its compile to Node (a vm.Script cannot import() without a flag). */
export const NODE_COMPILES = '/* toolman: compiled by Node: it imports an ES module */';
/** The ESM build's first line: bundled CommonJS dependencies call require() for Node built-ins. */
const ESM_REQUIRE = "import { createRequire as __toolmanCreateRequire } from 'node:module'; const require = __toolmanCreateRequire(import.meta.url);";

/** The provider SDKs whose modules get toolman's `Headers`, `FormData` and `console` (see sdkGlobals). */
const SDK_MODULES = /[\\/]node_modules[\\/](?:openai|@anthropic-ai[\\/]sdk)[\\/].+\.mjs$/;
/** Each global an SDK module may name, and the module of toolman's it gets instead. */
const SDK_GLOBALS = [
  ['Headers', '../src/providers/sdk-web-classes.ts'],
  ['FormData', '../src/providers/sdk-web-classes.ts'],
  ['console', '../src/providers/sdk-console.ts'],
];

/**
 * Gives each module of the provider SDKs that names `Headers`, `FormData` or `console` toolman's
 * instead of Node's globals, by imports added at its end (ES imports are hoisted; its lines stay
 * where they were). `Headers` and `FormData` (src/providers/sdk-web-classes.ts): Node 20 loads all
 * of its fetch (undici, with http, http2 and tls: about 17 ms of CPU) the first time either global
 * is touched, and the SDKs touch both for every request even when the fetch they are given is a
 * replay's. `console` (src/providers/sdk-console.ts): what the SDKs print of a reply they cannot
 * parse reaches the terminal as plain text, never as the escapes a hostile reply carried.
 */
function sdkGlobals() {
  const files = SDK_GLOBALS.map(([name, file]) => [name, fileURLToPath(new URL(file, import.meta.url))]);
  return {
    name: 'sdk-globals',
    setup(build) {
      build.onLoad({ filter: SDK_MODULES }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        const named = files.filter(([name]) => new RegExp(`\\b${name}\\b`).test(text));
        if (!named.length) return undefined;
        const imports = [...new Set(named.map(([, file]) => file))].map((file) => `import { ${named.filter(([, f]) => f === file).map(([name]) => name).join(', ')} } from ${JSON.stringify(file)};`);
        return { contents: `${text}\n;${imports.join('\n')}\n`, loader: 'js', resolveDir: dirname(path) };
      });
    },
  };
}

/** What both of toolman's bundles are built with (the library's in build.mjs, the CLI's here). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // A native binary, loaded only to compile TypeScript module handlers; ink's devtools (loaded
  // only with DEV=true), react's development builds (src/repl/run-repl.tsx loads react as production).
  external: ['esbuild', 'react-devtools-core', './cjs/*.development.js'],
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: ESM_REQUIRE },
  plugins: [sdkGlobals()],
};

export async function buildCli(root, outdir) {
  const esm = await build({
    ...BUNDLE_OPTIONS,
    absWorkingDir: root,
    entryPoints: { main: 'src/cli/main.ts', 'code-cache': 'src/cli/code-cache.ts' },
    outdir,
    // Inline, so that the transform below carries the map through to the CommonJS chunk.
    sourcemap: 'inline',
    write: false,
  });
  const chunks = esm.outputFiles.filter((f) => f.path.endsWith('.js'));
  const byName = new Map(chunks.map((f) => [basename(f.path), f]));

  // Which chunks must stay ES modules: those with top-level await, and what imports them statically.
  const stays = new Set();
  for (const file of chunks) {
    try {
      await toCommonJs(file.text, file.path);
    } catch (error) {
      if (!/Top-level await/.test(String(error.message))) throw error;
      stays.add(basename(file.path));
    }
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const file of chunks) {
      const name = basename(file.path);
      if (stays.has(name)) continue;
      if (staticImports(file.text).some((s) => stays.has(basename(s)))) (stays.add(name), (grew = true));
    }
  }
  if (['main.js', 'code-cache.js'].some((entry) => stays.has(entry))) throw new Error('build-cli: an entry of the CLI has top-level await on its path; it must stay CommonJS');

  // Every chunk under its new name, its references to other chunks renamed too.
  const renamed = (name) => (byName.has(name) ? name.replace(/\.js$/, stays.has(name) ? '.mjs' : '.cjs') : name);
  const rename = (text) => text.replace(/(["'])(\.\.?\/(?:chunks\/)?)([\w.-]+\.js)\1/g, (whole, quote, dir, name) => (byName.has(name) ? `${quote}${dir}${renamed(name)}${quote}` : whole));
  mkdirSync(outdir, { recursive: true });
  for (const file of chunks) {
    const name = basename(file.path);
    const target = join(dirname(file.path), renamed(name));
    mkdirSync(dirname(target), { recursive: true });
    if (stays.has(name)) {
      // An ES module, as esbuild wrote it (with its inline map: these are the REPL's, loaded rarely).
      writeFileSync(target, rename(file.text));
      continue;
    }
    const { code, map, importsEsm } = await toCommonJs(rename(file.text.slice(ESM_REQUIRE.length)), target);
    if (importsEsm && !stays.size) throw new Error(`build-cli: ${name} keeps a dynamic import() but no chunk is an ES module`);
    writeFileSync(`${target}.map`, map);
    writeFileSync(target, `${importsEsm ? `${NODE_COMPILES}\n` : ''}${code}//# sourceMappingURL=${basename(target)}.map\n`);
  }
  // A CommonJS chunk never require()s an ES module chunk (Node 20 cannot): only import() reaches one.
  for (const file of chunks) {
    if (stays.has(basename(file.path))) continue;
    for (const s of staticImports(file.text)) if (stays.has(basename(s))) throw new Error(`build-cli: ${basename(file.path)} imports the ES module ${s} statically`);
  }
  return { chunks: chunks.length, esModules: [...stays].map(renamed) };
}

/**
 * One ESM chunk as CommonJS: import.meta.url becomes the file's URL, every import() of a bundled
 * chunk a require(). `importsEsm`: it keeps a real import() of an ES module chunk. Told from the
 * imports hidden below, not from the code's text: an SDK's error message that mentions
 * `import('node:buffer')` (OpenAI's, Anthropic's) or a worker's source held in a string made Node
 * compile those chunks itself, without the code cache.
 */
async function toCommonJs(text, target) {
  const esmChunk = (specifier) => specifier.endsWith('.mjs');
  // A dynamic import of an ES module chunk must stay an import(); esbuild turns every import()
  // into a require() once dynamic imports are marked unsupported, so hide those first.
  let importsEsm = false;
  const hidden = text.replace(/\bimport\((["'])([^"']+)\1\)/g, (whole, quote, specifier) => (esmChunk(specifier) ? ((importsEsm = true), `__toolmanImportEsm(${quote}${specifier}${quote})`) : whole));
  const result = await transform(hidden, {
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__toolmanImportMetaUrl' },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'external',
    sourcefile: target,
    logLevel: 'silent',
  });
  if (result.warnings.length) throw new Error(`build-cli: ${relative(process.cwd(), target)}: ${result.warnings.map((w) => w.text).join('; ')}`);
  let code = result.code.replace(/\b__toolmanImportEsm\(/g, 'import(');
  if (code.includes('__toolmanImportMetaUrl')) code = `var __toolmanImportMetaUrl=require("node:url").pathToFileURL(__filename).href;${code}`;
  if (/\bimport\.meta\b/.test(code)) throw new Error(`build-cli: ${relative(process.cwd(), target)} uses import.meta beyond import.meta.url`);
  return { code, map: result.map, importsEsm };
}

/** The specifiers a chunk imports statically (esbuild's output: `import{...}from"./x.js"` and `import"./x.js"`). */
function staticImports(text) {
  return [...text.matchAll(/(?:^|[;}\n])\s*import\s*(?:[^'"()]*?from\s*)?["']([^"']+)["']/g)].map((m) => m[1]);
}
