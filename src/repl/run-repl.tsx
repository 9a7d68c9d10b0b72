import type { ReplContext, ReplIO } from './repl-context.js';

/** The interactive REPL (being built): until then, say how to run one turn. */
export async function runRepl(_context: ReplContext, io: ReplIO): Promise<0 | 1 | 2 | 130> {
  io.stderr.write('toolman: the interactive REPL is not available in this build; use --prompt "..." for one turn\n');
  return 2;
}
