// Loaded with --import by bench/run.mjs: reports the process's peak memory (all threads) on exit.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\nBENCH_MAXRSS_KB=${process.resourceUsage().maxRSS}\n`);
});
