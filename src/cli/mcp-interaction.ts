import { describeDefaults, yesInteraction, type McpInteraction } from '../manager/mcp-client.js';
import { colorEnabled, palette } from './color.js';
import type { CliIO } from './io.js';
import { plainText } from './output/terminal-text.js';

/**
 * How a one-shot command answers what an MCP server asks during a call: with `--yes`, a
 * one-question yes/no form, or a form whose every field has a default (the defaults are sent), is
 * accepted and anything else declined (said on stderr); on a terminal, such a question is asked
 * there; otherwise nothing is declared, so the server knows it cannot ask.
 */
export function cliInteraction(io: CliIO, options: { yes?: boolean; ask?: (question: string) => Promise<string> }): McpInteraction | undefined {
  const c = palette(colorEnabled(io, io.stderr));
  const note = (text: string) => void io.stderr.write(`${c.yellow('toolman: note:')} ${plainText(text)}\n`);
  if (options.yes) return yesInteraction(note);
  const ask = options.ask;
  if (!ask) return undefined;
  return {
    supports: { form: true },
    async elicit(request) {
      if (request.mode === 'form' && request.confirmation) {
        const answer = await ask(`MCP server "${plainText(request.server)}" asks: ${plainText(request.message)} [y/N] `);
        return /^y(es)?$/i.test(answer.trim()) ? { action: 'accept', content: { [request.confirmation]: true } } : { action: 'decline' };
      }
      if (request.mode === 'form' && request.defaults) {
        const answer = await ask(`MCP server "${plainText(request.server)}" asks: ${plainText(request.message)}; accept its defaults (${describeDefaults(request.defaults)})? [y/N] `);
        return /^y(es)?$/i.test(answer.trim()) ? { action: 'accept', content: { ...request.defaults } } : { action: 'decline' };
      }
      note(`MCP server "${request.server}" asked "${request.message}": declined (a form with fields to fill in needs a person: the REPL of \`toolman chat\` shows yes/no questions and forms with defaults)`);
      return { action: 'decline' };
    },
    note,
  };
}
