import { defineConfig } from 'vitest/config';

/**
 * The Trino lane (`npm run test:trino`): slow (Trino 483 starts in about a minute on two cores,
 * the first run also resolves ≈500 MB of jars), so it stays out of the default lane. Each test
 * file starts the services it needs in beforeAll.
 */
export default defineConfig({
  test: {
    include: ['test/trino/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
