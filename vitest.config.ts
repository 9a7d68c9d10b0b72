import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // CLI tests spawn the built binary; two cores, so keep the pool small.
    maxWorkers: 2,
  },
});
