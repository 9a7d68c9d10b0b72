import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const CATALOGS = join(ROOT, 'catalogs');
export const BIN = join(ROOT, 'bin', 'toolman.js');
