import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

/** What ajv needs of a regular expression. */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

// re2js is 260 KB of JavaScript: loaded (synchronously, since ajv compiles synchronously) only
// when a pattern is really compiled, not by every command that might meet one.
const load = createRequire(import.meta.url);
let engine: typeof RE2JS | undefined;
function re2(): typeof RE2JS {
  engine ??= (load('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return engine;
}

/**
 * JSON Schema `pattern`s (and mock `$regex`, and regex tool search) matched in linear time with
 * RE2 (the re2js port), so no pattern in a catalog or an MCP server's schema can make validation
 * hang on a model's input (`^(a+)+$` against "aaaa…!" takes minutes with JavaScript's backtracking
 * engine). RE2 has no lookaround and no backreferences: such patterns do not compile, and
 * `validate` says so (TM0309). JavaScript's `\uXXXX` and `\u{X}` escapes become RE2's `\x{X}`.
 */
export function linearRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): LinearRegExp {
  const RE2 = re2();
  const compiled = RE2.compile(toRe2Syntax(pattern), options.ignoreCase ? RE2.CASE_INSENSITIVE : 0);
  return {
    test: (text) => compiled.matcher(text).find(),
    // ajv keys compiled patterns by their text: each must be distinct.
    toString: () => `re2:${pattern}`,
  };
}

/** As ajv's `code.regExp` option: a RegExp engine (the flag is always "u", which RE2 is anyway). */
export const ajvLinearRegExp = Object.assign((pattern: string) => linearRegExp(pattern), { code: 'toolman-linear-regexp' });

/**
 * For `validate`'s compile, which exists for its complaints: a pattern is compiled with RE2 only
 * when something is matched against it (an example), so checking a catalog does not load RE2 for
 * patterns `validate` has already vetted (`mayNeedRe2Check`). One RE2 cannot compile checks nothing.
 */
export const ajvDeferredRegExp = Object.assign(
  (pattern: string): LinearRegExp => {
    let compiled: LinearRegExp | null | undefined;
    return {
      test: (text) => {
        if (compiled === undefined) {
          try {
            compiled = linearRegExp(pattern);
          } catch {
            compiled = null;
          }
        }
        return compiled === null || compiled.test(text);
      },
      toString: () => `re2:${pattern}`,
    };
  },
  { code: 'toolman-deferred-regexp' },
);

/**
 * Whether RE2 may refuse a pattern JavaScript accepts: lookaround and other `(?` groups, property
 * and back references, `[^]`, repeat counts over 1,000. Patterns without any of these are plain
 * regular expressions both engines read alike, so `validate` need not load RE2 to accept them.
 */
export function mayNeedRe2Check(pattern: string): boolean {
  return /\(\?|\\[pPkc1-9]|\[\^\]|\{\d{4,}|,\d{4,}\}/.test(pattern);
}

/** Rewrites the JavaScript escapes RE2 spells differently; everything else is the same syntax. */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = pattern[i + 1];
    const hex4 = /^u([0-9a-fA-F]{4})/.exec(pattern.slice(i + 1, i + 6));
    const braced = /^u\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 1, i + 10));
    if (hex4) {
      out += `\\x{${hex4[1]}}`;
      i += 5;
    } else if (braced) {
      out += `\\x{${braced[1]}}`;
      i += braced[0].length;
    } else if (next === '/') {
      // `\/` is an escape JavaScript patterns carry over from regex literals; RE2 takes a plain `/`.
      out += '/';
      i += 1;
    } else {
      out += char + (next ?? '');
      i += 1;
    }
  }
  return out;
}
