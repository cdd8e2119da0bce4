/**
 * The testcontainers stack loads on the Node version we support (testcontainers 12 pulls undici
 * 8, which needs Node 22 and breaks at import on Node 20); its broker settings reach the
 * apache/kafka image as the variables that image reads; and docker/compose.yaml names the same
 * images as the containers lane.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from '../../e2e/cli.js';
import { MINIO_MODULE_VERSION } from '../../stack/minio.js';
import { SERVICE_IMAGES } from '../../stack/stack-image-names.js';

it('loads the testcontainers stack on this Node version', async () => {
  const module = await import('../../stack/containers.js');
  expect(typeof module.containerStack).toBe('function');
});

it("names broker settings as the apache/kafka image's variables", async () => {
  const { kafkaEnvironment } = await import('../../stack/containers.js');
  expect(kafkaEnvironment({ 'node.id': '1', 'log.dirs': '/tmp/k', 'controller.quorum.voters': '1@127.0.0.1:9093', 'share.coordinator.state.topic.min.isr': '1', 'some_under.dash-key': 'x' })).toEqual({
    KAFKA_NODE_ID: '1',
    KAFKA_LOG_DIRS: '/tmp/k',
    KAFKA_CONTROLLER_QUORUM_VOTERS: '1@127.0.0.1:9093',
    KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
    KAFKA_SOME__UNDER_DASH___KEY: 'x',
  });
});

it('docker/compose.yaml runs the images the containers lane runs', () => {
  const compose = parse(readFileSync(join(REPO, 'docker/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, { image?: string }> };
  expect({ minio: compose.services['minio']?.image, rest: compose.services['rest']?.image, kafka: compose.services['kafka']?.image, trino: compose.services['trino']?.image }).toEqual({
    minio: SERVICE_IMAGES.minio,
    rest: SERVICE_IMAGES['iceberg-rest-fixture'],
    kafka: SERVICE_IMAGES.kafka,
    trino: SERVICE_IMAGES.trino,
  });
});

it('builds the MinIO image from the module version the local stack runs', () => {
  const dockerfile = readFileSync(join(REPO, 'docker/minio/Dockerfile'), 'utf8');
  expect(/^ARG MINIO_MODULE_VERSION=(\S+)$/m.exec(dockerfile)?.[1]).toBe(MINIO_MODULE_VERSION);
});
