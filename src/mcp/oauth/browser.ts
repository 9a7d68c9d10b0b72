import { spawn } from 'node:child_process';
import { ErrorCode, ToolmanError } from '../../shared/errors.js';

/** How a URL reached the user: a browser was started with it, or it was printed for them to open. */
export type BrowserOutcome = 'opened' | 'printed';

/**
 * Opens an http(s) URL with the user's browser: the first command of `$BROWSER` (a colon-separated
 * list, as `sensible-browser` reads it), split into words without a shell (`%s` becomes the URL,
 * else the URL is the last argument), started detached. Without `$BROWSER`, or when it cannot be
 * started, the URL is handed to `print` for the user to open. A URL of any other scheme (a
 * server's `file:` or `javascript:` link) is refused: it never reaches a program. The URL is one
 * argument; nothing in it can become another word or a shell command.
 */
export async function openInBrowser(url: string, env: Record<string, string | undefined>, print: (url: string) => void): Promise<BrowserOutcome> {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new ToolmanError(ErrorCode.USAGE, 'only http(s) pages are opened in the browser');
  const href = new URL(url).href;
  const command = (env.BROWSER ?? '').split(':')[0]?.trim() ?? '';
  const words = splitWords(command);
  if (words.length === 0) {
    print(href);
    return 'printed';
  }
  const args = words.slice(1).some((w) => w.includes('%s')) ? words.slice(1).map((w) => w.replaceAll('%s', href)) : [...words.slice(1), href];
  const started = await new Promise<boolean>((resolve) => {
    try {
      const child = spawn(words[0]!, args, { stdio: 'ignore', detached: true, shell: false, windowsHide: true });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
      child.once('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });
  if (!started) print(href);
  return started ? 'opened' : 'printed';
}

/** Words of a command line the way a shell splits plain words and quotes: no expansion, no operators. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word = (word ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}
