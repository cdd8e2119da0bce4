/**
 * The test lanes a capability's evidence can come from, and which of them `npm test` runs.
 * A lane is known by where its files live, so the check can refuse a test filed under the wrong
 * lane (a Trino test listed as integration would make a capability look proven by `npm test`).
 */
export const LANES = ['unit', 'e2e', 'integration', 'interop', 'trino', 'docker-image', 'containers'] as const;
export type Lane = (typeof LANES)[number];

const DOCKER_IMAGE_TEST = 'test/docker/image.test.ts';
/** The compose lane's own tests (`npm run test:containers` also runs the integration tests on containers). */
const CONTAINERS_TESTS = new Set(['test/docker/compose-up.test.ts', 'test/docker/stack-images.test.ts']);

export const LANE_COMMAND: Readonly<Record<Lane, string>> = {
  unit: 'npm test',
  e2e: 'npm test',
  integration: 'npm test',
  interop: 'npm test',
  trino: 'npm run test:trino',
  'docker-image': 'npm run test:docker-image',
  containers: 'npm run test:containers',
};

export function runByNpmTest(lane: Lane): boolean {
  return LANE_COMMAND[lane] === 'npm test';
}

/** The lane a test file (path from the repository root) belongs to, or undefined outside test/. */
export function laneOfFile(file: string): Lane | undefined {
  if (file === DOCKER_IMAGE_TEST) return 'docker-image';
  if (CONTAINERS_TESTS.has(file)) return 'containers';
  if (file.startsWith('test/unit/') || file.startsWith('test/docker/')) return 'unit';
  if (file.startsWith('test/e2e/')) return 'e2e';
  if (file.startsWith('test/integration/')) return 'integration';
  if (file.startsWith('test/interop/')) return 'interop';
  if (file.startsWith('test/trino/')) return 'trino';
  return undefined;
}
