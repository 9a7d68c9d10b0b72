// Loaded with --import by bench/shards.mjs: reports the CPU time the process used (user + system,
// all threads, microseconds) on exit, so a run and its shards can be compared in CPU, not wall time.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  writeSync(2, `\nBENCH_CPU_US=${userCPUTime + systemCPUTime}\n`);
});
