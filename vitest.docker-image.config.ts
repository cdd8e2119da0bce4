import { defineConfig } from 'vitest/config';

/**
 * The Docker image lane (`npm run test:docker-image`): builds docker/Dockerfile with a real
 * engine (started by test/docker/engine.sh when DOCKER_HOST is unset) and runs the image.
 * About 10 min on a cold cache, 2 min warm, so it stays out of the default lane.
 * test/docker/stack-images.test.ts makes the dev stack's images (test/docker/stack-images.ts) and
 * runs each; name it to run it alone.
 */
export default defineConfig({
  test: {
    include: ['test/docker/image.test.ts', 'test/docker/stack-images.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    pool: 'forks',
  },
});
