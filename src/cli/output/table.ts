import type { CliIO } from '../io.js';
import { colorEnabled } from '../color.js';

/** A compact cli-table3 table (no lines between rows), coloured like the rest of the output. */
export async function createTable(head: string[], io: Pick<CliIO, 'env' | 'stdout'>) {
  const { default: Table } = await import('cli-table3');
  const color = colorEnabled(io, io.stdout);
  return new Table({
    head,
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
}
