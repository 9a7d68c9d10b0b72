import { format } from 'node:util';
import { processSecrets } from '../shared/secrets.js';
import type { CliIO } from './io.js';
import { plainText } from './output/terminal-text.js';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * The MCP SDK writes a few lines straight to the console: `[mcp-sdk] ...` warnings (an OAuth
 * refresh that failed and falls back to a sign-in, a stored credential without an issuer) and a
 * `console.debug` when a list is asked of a server that lacks the capability. `console.log` and
 * `console.debug` write to standard output, where they would break `--json`; all of them bypass
 * toolman's redaction and cleaning. While a command runs, those lines (recognised by their start,
 * nothing else) become `toolman: note:` lines on standard error, cleaned and redacted. Returns the
 * function that puts the console back. (The REPL routes the whole console into notes itself.)
 */
export function routeLibraryConsole(io: CliIO, target: Console = console): () => void {
  const saved = METHODS.map((method) => [method, target[method]] as const);
  for (const [method, original] of saved) {
    target[method] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && isSdkLine(args[0])) {
        io.stderr.write(`toolman: note: ${plainText(processSecrets.redact(format(...args).replace(/^\[mcp-sdk\]\s*/, 'MCP SDK: ')))}\n`);
        return;
      }
      original.apply(target, args);
    };
  }
  return () => {
    for (const [method, original] of saved) target[method] = original;
  };
}

function isSdkLine(text: string): boolean {
  return text.startsWith('[mcp-sdk]') || /^Client\.list\w*\(\) called but server does not advertise/.test(text);
}
