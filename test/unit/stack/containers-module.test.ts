/**
 * The testcontainers path cannot start containers here (no Docker engine), but it must at least
 * load on the Node version we support: testcontainers 12 pulls undici 8, which needs Node 22 and
 * breaks at import on Node 20.
 */
import { expect, it } from 'vitest';

it('loads the testcontainers stack on this Node version', async () => {
  const module = await import('../../stack/containers.js');
  expect(typeof module.containerStack).toBe('function');
  expect(module.REST_FIXTURE_IMAGE).toMatch(/^apache\/iceberg-rest-fixture:\d/);
});
