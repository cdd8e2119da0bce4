import { defineConfig } from 'vitest/config';

/**
 * Two projects, so the test services start only when a test that needs them is selected:
 * `services` (test/integration, test/interop) has the global setup that brings the stack up once
 * per run (test/stack/global-setup.ts; THUND_STACK picks local processes, containers or none);
 * `unit` is everything else under test/ and starts nothing. So `npx vitest run test/unit/x`
 * starts no service, while `npx vitest run` and `npm test` start the stack once.
 * The test/**\/*.test.ts include lives in the projects only: a root-level include would be
 * concatenated into each project's and pull every test into `services`.
 */
const serviceTests = ['test/integration/**/*.test.ts', 'test/interop/**/*.test.ts'];
/** Slower lanes of their own: npm run test:trino, npm run test:docker-image, npm run test:containers. */
const ownLanes = ['test/trino/**', 'test/docker/image.test.ts', 'test/docker/stack-images.test.ts', 'test/docker/compose-up.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The AWS SDK prints a Node 22 notice per process on Node 20; it says nothing about a test.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...serviceTests, ...ownLanes] } },
      { extends: true, test: { name: 'services', include: serviceTests, globalSetup: ['test/stack/global-setup.ts'] } },
    ],
  },
});
