import type { CliIO, OutputStream } from './io.js';

export interface Palette {
  red(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  green(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

/** Colour only for a terminal, unless NO_COLOR or FORCE_COLOR say otherwise (https://no-color.org). */
export function colorEnabled(io: Pick<CliIO, 'env'>, stream: OutputStream): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined) return io.env.FORCE_COLOR !== '0' && io.env.FORCE_COLOR !== 'false';
  return stream.isTTY === true && io.env.TERM !== 'dumb';
}

export function palette(enabled: boolean): Palette {
  if (!enabled) return { red: plain, yellow: plain, blue: plain, green: plain, dim: plain, bold: plain, cyan: plain };
  return { red: wrap(31, 39), yellow: wrap(33, 39), blue: wrap(34, 39), green: wrap(32, 39), dim: wrap(2, 22), bold: wrap(1, 22), cyan: wrap(36, 39) };
}
