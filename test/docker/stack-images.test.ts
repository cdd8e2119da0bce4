/**
 * The stack's images made by test/docker/stack-images.ts, run for real on the engine (--network
 * host, every socket on a free loopback port through the image's own settings): MinIO serves and
 * `mc mb` makes the bucket; the Iceberg REST fixture, backed by that MinIO, makes a namespace and
 * a table whose metadata lands in the bucket; Kafka's image writes its properties from KAFKA_*
 * variables, answers kafka-broker-api-versions.sh, round-trips a record with kafkajs from the host
 * and stops on SIGTERM; Trino turns healthy by its health-check and answers SELECT 1 and the REST
 * catalog's namespaces through a catalog file with ${ENV:…}; Nessie answers its config endpoints;
 * moto answers /moto-api/ and its python3 imports the Glue server.
 *
 *   npx vitest run --config vitest.docker-image.config.ts test/docker/stack-images.test.ts
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay, freePort, httpOk, twoFreePorts } from '../stack/process.js';
import { docker, dockerOk, REPO } from './engine.js';
import { ensureStackImages, STACK_IMAGES } from './stack-images.js';

const S3 = { accessKey: 'thund', secretKey: 'thund-image-test-password', region: 'us-east-1', bucket: 'warehouse' };
const containers: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'thund-stack-images-'));
let minioEndpoint = '';
let restUri = '';

/** `docker run -d --network host` with a name this run removes afterwards; returns the name. */
function start(service: string, args: readonly string[]): string {
  const name = `thund-stack-image-${service}-${process.pid}`;
  docker(['rm', '-f', name], 60_000);
  containers.push(name);
  dockerOk(['run', '-d', '--name', name, '--network', 'host', ...args], 300_000);
  return name;
}

/** Polls until `ready` holds; fails with the container's log tail. */
async function waitFor(container: string, what: string, ready: () => Promise<boolean> | boolean, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await Promise.resolve().then(ready).catch(() => false)) return;
    if (docker(['inspect', '--format', '{{.State.Running}}', container], 60_000).stdout.trim() === 'false') break;
    await delay(1_000);
  }
  const logs = docker(['logs', '--tail', '60', container], 60_000);
  throw new Error(`${container}: ${what} not reached within ${timeoutMs / 1000} s; its log:\n${logs.stdout}\n${logs.stderr}`);
}

const env = (variables: Readonly<Record<string, string>>): string[] => Object.entries(variables).flatMap(([name, value]) => ['-e', `${name}=${value}`]);

describe('the stack images', () => {
  beforeAll(async () => {
    const made = await ensureStackImages();
    expect(made.map((image) => image.ref)).toEqual(expect.arrayContaining(Object.values(STACK_IMAGES)));
    chmodSync(dir, 0o755);
  }, 1_800_000);

  afterAll(() => {
    for (const name of containers) docker(['rm', '-f', '-v', name], 120_000);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('names the images docker/compose.yaml uses', () => {
    const compose = readFileSync(join(REPO, 'docker', 'compose.yaml'), 'utf8');
    const images = [...compose.matchAll(/^\s+image:\s*(\S+)\s*$/gm)].map((match) => match[1]);
    const made = Object.values(STACK_IMAGES) as string[];
    expect(images.filter((image) => image !== 'thund:dev').every((image) => image !== undefined && made.includes(image))).toBe(true);
  });

  it('MinIO serves, its healthcheck passes and mc makes the bucket', async () => {
    const [port, consolePort] = await twoFreePorts();
    minioEndpoint = `http://127.0.0.1:${port}`;
    const minio = start('minio', [
      ...env({ MINIO_ROOT_USER: S3.accessKey, MINIO_ROOT_PASSWORD: S3.secretKey }),
      STACK_IMAGES.minio, 'server', '/data', '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`,
    ]);
    await waitFor(minio, 'MinIO live', () => httpOk(`${minioEndpoint}/minio/health/live`));
    // compose.yaml's healthcheck, inside the container.
    dockerOk(['exec', minio, 'curl', '-fsS', `${minioEndpoint}/minio/health/live`]);
    // compose.yaml's minio-init, in a container of its own.
    const init = docker(['run', '--rm', '--network', 'host', '--entrypoint', '/bin/sh', ...env({ MINIO_ROOT_USER: S3.accessKey, MINIO_ROOT_PASSWORD: S3.secretKey }), STACK_IMAGES.minio,
      '-c', `mc alias set local ${minioEndpoint} "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null && mc mb --ignore-existing local/${S3.bucket} && mc ls local`], 300_000);
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain(`${S3.bucket}/`);
  }, 600_000);

  it('the Iceberg REST fixture serves a catalog backed by MinIO', async () => {
    expect(minioEndpoint).not.toBe('');
    const port = await freePort();
    restUri = `http://127.0.0.1:${port}`;
    const rest = start('rest', [
      ...env({
        AWS_ACCESS_KEY_ID: S3.accessKey, AWS_SECRET_ACCESS_KEY: S3.secretKey, AWS_REGION: S3.region,
        CATALOG_WAREHOUSE: `s3://${S3.bucket}/`,
        CATALOG_IO__IMPL: 'org.apache.iceberg.aws.s3.S3FileIO',
        CATALOG_S3_ENDPOINT: minioEndpoint,
        CATALOG_S3_PATH__STYLE__ACCESS: 'true',
        CATALOG_URI: 'jdbc:sqlite:/home/iceberg/catalog.db',
        // The fixture's port is its catalog property rest.port; REST_PORT is what its healthcheck asks.
        CATALOG_REST_PORT: String(port),
        REST_PORT: String(port),
      }),
      STACK_IMAGES['iceberg-rest-fixture'],
    ]);
    await waitFor(rest, '/v1/config', () => httpOk(`${restUri}/v1/config`));
    dockerOk(['exec', rest, 'curl', '--fail', '-sS', `http://localhost:${port}/v1/config`]);
    const namespace = await fetch(`${restUri}/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: ['image_test'] }) });
    expect(namespace.status, await namespace.text()).toBe(200);
    const table = await fetch(`${restUri}/v1/namespaces/image_test/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'orders', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: false, type: 'long' }] } }),
    });
    const created = (await table.json()) as { 'metadata-location'?: string };
    expect(table.status).toBe(200);
    expect(created['metadata-location']).toMatch(new RegExp(`^s3://${S3.bucket}/image_test/orders/metadata/.*\\.metadata\\.json$`));
    const listed = docker(['run', '--rm', '--network', 'host', '--entrypoint', '/bin/sh', ...env({ MINIO_ROOT_USER: S3.accessKey, MINIO_ROOT_PASSWORD: S3.secretKey }), STACK_IMAGES.minio,
      '-c', `mc alias set local ${minioEndpoint} "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null && mc ls --recursive local/${S3.bucket}/image_test/`], 300_000);
    expect(listed.stdout).toMatch(/orders\/metadata\/\S+\.metadata\.json/);
  }, 600_000);

  it('Kafka takes its properties from KAFKA_* variables, answers the tools and kafkajs, and stops on SIGTERM', async () => {
    const [brokerPort, controllerPort] = await twoFreePorts();
    const brokers = `127.0.0.1:${brokerPort}`;
    const kafka = start('kafka', [
      ...env({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: `EXTERNAL://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}`,
        KAFKA_ADVERTISED_LISTENERS: `EXTERNAL://${brokers}`,
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'EXTERNAL',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: `1@127.0.0.1:${controllerPort}`,
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        // Not a Kafka setting (the broker only warns): shows the name rules, ___ → -, __ → _, _ → .
        KAFKA_THUND___IMAGE__TEST_NAME: 'x',
        KAFKA_HEAP_OPTS: '-Xmx512m',
      }),
      STACK_IMAGES.kafka,
    ]);
    const apiVersions = (): boolean =>
      docker(['exec', kafka, 'bash', '-c', `/opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server ${brokers} > /dev/null 2>&1`], 120_000).status === 0;
    await waitFor(kafka, 'kafka-broker-api-versions.sh', apiVersions);
    const properties = dockerOk(['exec', kafka, 'cat', '/opt/kafka/config/server.properties']);
    expect(properties).toContain(`controller.quorum.voters=1@127.0.0.1:${controllerPort}`);
    expect(properties).toContain('thund-image_test.name=x');
    expect(properties).not.toContain('heap');

    const topic = `image-test-${randomUUID()}`;
    dockerOk(['exec', kafka, '/opt/kafka/bin/kafka-topics.sh', '--bootstrap-server', brokers, '--create', '--topic', topic, '--partitions', '1'], 120_000);
    const client = new Kafka({ clientId: 'thund-stack-images-test', brokers: [brokers], logLevel: logLevel.NOTHING });
    const producer = client.producer();
    const consumer = client.consumer({ groupId: `image-test-${randomUUID()}` });
    try {
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'k', value: 'hello from the host' }] });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no record within 60 s')), 60_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            resolve(message.value?.toString() ?? '');
          },
        });
      });
      expect(received).toBe('hello from the host');
    } finally {
      await producer.disconnect();
      await consumer.disconnect();
    }

    const stopStarted = Date.now();
    dockerOk(['stop', '--time', '60', kafka], 120_000);
    const stopSeconds = (Date.now() - stopStarted) / 1000;
    console.log(`docker stop of ${STACK_IMAGES.kafka}: ${stopSeconds.toFixed(1)} s`);
    expect(stopSeconds).toBeLessThan(45);
    expect(dockerOk(['inspect', '--format', '{{.State.ExitCode}}', kafka]).trim()).toMatch(/^(0|143)$/);
    // A restarted container finds its storage formatted and serves again.
    dockerOk(['start', kafka]);
    await waitFor(kafka, 'kafka-broker-api-versions.sh after a restart', apiVersions);
  }, 900_000);

  it('Trino turns healthy and answers SELECT 1 and the REST catalog through ${ENV:…} settings', async () => {
    expect(restUri).not.toBe('');
    const port = await freePort();
    const etc = join(dir, 'trino');
    rmSync(etc, { recursive: true, force: true });
    writeFileSync(join(dir, 'config.properties'), [
      'coordinator=true', 'node-scheduler.include-coordinator=true', `http-server.http.port=${port}`, `discovery.uri=http://localhost:${port}`, 'query.max-memory=256MB', 'query.max-memory-per-node=256MB', '',
    ].join('\n'));
    // compose.yaml's catalog file, pointed at this test's services.
    const catalog = readFileSync(join(REPO, 'docker', 'trino', 'catalog', 'iceberg.properties'), 'utf8')
      .replace('http://rest:8181', restUri)
      .replace('http://minio:9000', minioEndpoint);
    expect(catalog).toContain('${ENV:AWS_ACCESS_KEY_ID}');
    writeFileSync(join(dir, 'iceberg.properties'), catalog);
    const trino = start('trino', [
      ...env({ AWS_ACCESS_KEY_ID: S3.accessKey, AWS_SECRET_ACCESS_KEY: S3.secretKey, AWS_REGION: S3.region }),
      '-v', `${join(dir, 'config.properties')}:/etc/trino/config.properties:ro`,
      '-v', `${join(dir, 'iceberg.properties')}:/etc/trino/catalog/iceberg.properties:ro`,
      STACK_IMAGES.trino,
    ]);
    await waitFor(trino, 'health-check', () => docker(['exec', trino, '/usr/lib/trino/bin/health-check'], 60_000).status === 0, 420_000);
    expect(await trinoQuery(port, 'SELECT 1')).toEqual([[1]]);
    expect(await trinoQuery(port, 'SHOW SCHEMAS FROM iceberg')).toEqual(expect.arrayContaining([['image_test']]));
    expect(await trinoQuery(port, 'SELECT count(*) FROM iceberg.image_test.orders')).toEqual([[0]]);
  }, 900_000);

  it('Nessie answers its config endpoints', async () => {
    expect(minioEndpoint).not.toBe('');
    const [port, managementPort] = await twoFreePorts();
    const nessie = start('nessie', [
      ...env({
        QUARKUS_HTTP_PORT: String(port),
        QUARKUS_MANAGEMENT_PORT: String(managementPort),
        'nessie.version.store.type': 'IN_MEMORY',
        'nessie.catalog.default-warehouse': 'warehouse',
        'nessie.catalog.warehouses.warehouse.location': `s3://${S3.bucket}/nessie/`,
        'nessie.catalog.service.s3.default-options.endpoint': minioEndpoint,
        'nessie.catalog.service.s3.default-options.path-style-access': 'true',
        'nessie.catalog.service.s3.default-options.region': S3.region,
        'nessie.catalog.service.s3.default-options.access-key': 'urn:nessie-secret:quarkus:thund-minio',
        'thund-minio.name': S3.accessKey,
        'thund-minio.secret': S3.secretKey,
      }),
      STACK_IMAGES.nessie,
    ]);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(nessie, '/api/v2/config', () => httpOk(`${base}/api/v2/config`));
    const config = (await (await fetch(`${base}/api/v2/config`)).json()) as { defaultBranch?: string };
    expect(config.defaultBranch).toBe('main');
    const icebergResponse = await fetch(`${base}/iceberg/v1/config`);
    const iceberg = (await icebergResponse.json()) as { defaults?: Record<string, string> };
    expect(icebergResponse.status, JSON.stringify(iceberg)).toBe(200);
    expect(iceberg.defaults?.['prefix']).toContain('main');
    expect(await httpOk(`http://127.0.0.1:${managementPort}/q/health/ready`)).toBe(true);
  }, 600_000);

  it('moto serves /moto-api/ by its default entrypoint, and its python3 imports the Glue server', async () => {
    const port = await freePort();
    const moto = start('moto', [STACK_IMAGES.moto, '-p', String(port)]);
    await waitFor(moto, '/moto-api/', () => httpOk(`http://127.0.0.1:${port}/moto-api/`));
    const python = docker(['run', '--rm', '--network', 'host', '--entrypoint', 'python3', STACK_IMAGES.moto, '-c', 'import moto, moto.server, moto.glue, flask_cors; print(moto.__version__)'], 300_000);
    expect(python.status, python.stderr).toBe(0);
    expect(python.stdout.trim()).toBe(STACK_IMAGES.moto.split(':')[1]);
  }, 600_000);
});

/** Runs one statement through Trino's client protocol, following nextUri to the end; the rows. */
async function trinoQuery(port: number, sql: string): Promise<unknown[][]> {
  const headers = { 'X-Trino-User': 'thund' };
  let response = (await (await fetch(`http://127.0.0.1:${port}/v1/statement`, { method: 'POST', headers, body: sql })).json()) as TrinoPage;
  const rows: unknown[][] = [...(response.data ?? [])];
  while (response.nextUri !== undefined) {
    response = (await (await fetch(response.nextUri, { headers })).json()) as TrinoPage;
    rows.push(...(response.data ?? []));
  }
  if (response.error !== undefined) throw new Error(`Trino: ${sql}: ${response.error.message}`);
  return rows;
}

interface TrinoPage {
  readonly nextUri?: string;
  readonly data?: unknown[][];
  readonly error?: { readonly message: string };
}
