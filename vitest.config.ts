import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // CLI tests spawn the built binary; two cores, so keep the pool small.
    maxWorkers: 2,
    // Tests never read or write the user's cache of validated catalogs; one test turns it on in a temp folder.
    env: { TOOLMAN_CACHE_DIR: 'off' },
  },
});
