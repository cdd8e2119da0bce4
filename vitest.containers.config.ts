import { defineConfig } from 'vitest/config';

/**
 * The compose lane (part of `npm run test:containers`, see test/run-containers.sh): the stack's
 * images made or found on a real engine, then docker/compose.yaml brought up with the README's
 * commands and read through Trino. About 25 min on a cold cache, most of it building images.
 */
export default defineConfig({
  test: {
    include: ['test/docker/stack-images.test.ts', 'test/docker/compose-up.test.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
