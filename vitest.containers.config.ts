import { defineConfig } from 'vitest/config';

/**
 * The compose lane (part of `npm run test:containers`, see test/run-containers.sh): the stack's
 * images made or found on a real engine, then docker/compose.yaml brought up with the README's
 * commands and read through Trino. About 8 min once the images exist; making them all on a cold
 * engine takes about 30 min more, half of it MinIO's Go build.
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
