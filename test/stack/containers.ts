/**
 * The same services as containers, for machines with a Docker engine (THUND_STACK=containers),
 * started through testcontainers. Each starter returns the RunningService shape and THUND_TEST_*
 * variables of its local-process twin, with the same settings (the local starters export them),
 * so the tests cannot tell the two apart.
 *
 * Every container runs on the host's network, each socket on a free 127.0.0.1 port chosen here:
 * that works on any Linux engine, including one without a bridge network (the private engine of
 * test/docker/engine.sh), and no port is published on another interface. testcontainers' reaper
 * container needs a published port, so it is off: `close` and each service's `stop` remove what
 * this run started. The images are those of docker/compose.yaml and the stack's other services,
 * under their upstream names; test/docker/stack-images.ts makes them where no registry serves them.
 */
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { adminAnswers, clusterId, kafkaServerProperties } from './kafka.js';
import { MINIO_BUCKET, MINIO_REGION, runningMinio, type RunningMinio } from './minio.js';
import { MOTO_GLUE_LAUNCHER } from './moto.js';
import { nessieProperties, type RunningNessie } from './nessie.js';
import { delay, freePort, httpOk, StackError, twoFreePorts } from './process.js';
import { restCatalogEnv, type RunningRestCatalog } from './rest-catalog.js';
import { stackS3Client } from './s3-env.js';
import type { RunningService } from './service.js';
import { SERVICE_IMAGES } from './stack-image-names.js';

// Read by testcontainers when it first reaches the engine: no reaper (it needs a published port),
// and the host is loopback, not a bridge network's gateway (an engine may have no bridge).
process.env['TESTCONTAINERS_RYUK_DISABLED'] = 'true';
process.env['TESTCONTAINERS_HOST_OVERRIDE'] = '127.0.0.1';
const { GenericContainer } = await import('testcontainers');
type StartedTestContainer = Awaited<ReturnType<InstanceType<typeof GenericContainer>['start']>>;

const READY_TIMEOUT_MS = 300_000;
const RUN_LABEL = 'org.thund.test-stack-run';

export interface ContainerStack {
  startMinio(): Promise<RunningMinio>;
  startRestCatalog(minio: RunningMinio): Promise<RunningRestCatalog>;
  startNessie(minio: RunningMinio): Promise<RunningNessie>;
  startKafka(): Promise<RunningService>;
  startMoto(): Promise<RunningService>;
  close(): Promise<void>;
}

export function containerStack(): ContainerStack {
  const started = new Set<StartedTestContainer>();

  /** Starts `image` on the host network and waits until `ready` answers from the host; its log tail on failure. */
  async function start(name: string, image: string, options: { env?: Record<string, string>; command?: string[]; entrypoint?: string[]; files?: { content: string; target: string }[] }, ready: () => Promise<boolean>): Promise<StartedTestContainer> {
    let definition = new GenericContainer(image).withNetworkMode('host').withLabels({ [RUN_LABEL]: String(process.pid) });
    if (options.env !== undefined) definition = definition.withEnvironment(options.env);
    if (options.entrypoint !== undefined) definition = definition.withEntrypoint(options.entrypoint);
    if (options.command !== undefined) definition = definition.withCommand(options.command);
    if (options.files !== undefined) definition = definition.withCopyContentToContainer(options.files);
    const container = await definition.start();
    started.add(container);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (await ready().catch(() => false)) return container;
      await delay(500);
    }
    const log = await logTail(container);
    await stop(container);
    throw new StackError(`${name} (${image}) was not ready after ${READY_TIMEOUT_MS / 1000} s. Its log:\n${log}`);
  }

  async function stop(container: StartedTestContainer): Promise<void> {
    if (!started.delete(container)) return;
    await container.stop({ remove: true, removeVolumes: true });
  }

  const service = (container: StartedTestContainer) => () => stop(container);

  return {
    async startMinio() {
      const accessKey = `thund${randomBytes(6).toString('hex')}`;
      const secretKey = randomBytes(24).toString('base64url');
      const [port, consolePort] = await twoFreePorts();
      const endpoint = `http://127.0.0.1:${port}`;
      const container = await start(
        'minio',
        SERVICE_IMAGES.minio,
        {
          env: { MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off', MINIO_CI_CD: 'on' },
          command: ['server', '/data', '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
        },
        () => httpOk(`${endpoint}/minio/health/live`),
      );
      const s3 = stackS3Client({ endpoint, region: MINIO_REGION, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
      try {
        await s3.send(new CreateBucketCommand({ Bucket: MINIO_BUCKET }));
      } catch (error) {
        await stop(container);
        throw error;
      } finally {
        s3.destroy();
      }
      return runningMinio({ version: SERVICE_IMAGES.minio, endpoint, accessKey, secretKey, stop: service(container) });
    },

    async startRestCatalog(minio) {
      const port = await freePort();
      const uri = `http://127.0.0.1:${port}`;
      const container = await start('rest-catalog', SERVICE_IMAGES['iceberg-rest-fixture'], { env: restCatalogEnv(minio, port, 'jdbc:sqlite:/tmp/catalog.sqlite') }, () => httpOk(`${uri}/v1/config`));
      return { name: 'rest-catalog', version: SERVICE_IMAGES['iceberg-rest-fixture'], uri, env: { THUND_TEST_REST_URI: uri }, stop: service(container) };
    },

    async startNessie(minio) {
      const [port, managementPort] = await twoFreePorts();
      const uri = `http://127.0.0.1:${port}/iceberg`;
      // Quarkus reads an environment variable named exactly as a property.
      const container = await start('nessie', SERVICE_IMAGES.nessie, { env: nessieProperties(minio, port, managementPort) }, () => httpOk(`${uri}/v1/config`));
      return { name: 'nessie', version: SERVICE_IMAGES.nessie, uri, env: { THUND_TEST_NESSIE_URI: uri }, stop: service(container) };
    },

    async startKafka() {
      const [brokerPort, controllerPort] = await twoFreePorts();
      const { 'controller.quorum.bootstrap.servers': _dynamicQuorum, ...properties } = kafkaServerProperties({ brokerPort, controllerPort, logDirs: '/tmp/kafka-logs' });
      // The image formats its storage for a static quorum, as docker/compose.yaml configures it.
      properties['controller.quorum.voters'] = `1@127.0.0.1:${controllerPort}`;
      const brokers = `127.0.0.1:${brokerPort}`;
      const container = await start('kafka', SERVICE_IMAGES.kafka, { env: { ...kafkaEnvironment(properties), CLUSTER_ID: clusterId() } }, () => adminAnswers(brokers));
      return { name: 'kafka', version: SERVICE_IMAGES.kafka, env: { THUND_TEST_KAFKA_BROKERS: brokers }, stop: service(container) };
    },

    async startMoto() {
      // The image's python runs the same patched launcher as the local moto (test/stack/moto.ts).
      const port = await freePort();
      const endpoint = `http://127.0.0.1:${port}`;
      const container = await start(
        'moto',
        SERVICE_IMAGES.moto,
        {
          files: [{ content: MOTO_GLUE_LAUNCHER, target: '/thund/moto_glue_server.py' }],
          entrypoint: ['python3'],
          command: ['/thund/moto_glue_server.py', '-H', '127.0.0.1', '-p', String(port)],
        },
        () => httpOk(`${endpoint}/moto-api/`),
      );
      return {
        name: 'moto',
        version: SERVICE_IMAGES.moto,
        env: {
          THUND_TEST_GLUE_ENDPOINT: endpoint,
          THUND_TEST_AWS_ACCESS_KEY: 'testing',
          THUND_TEST_AWS_SECRET_KEY: 'testing',
          THUND_TEST_AWS_REGION: 'us-east-1',
        },
        stop: service(container),
      };
    },

    async close() {
      await Promise.allSettled([...started].map((container) => stop(container)));
    },
  };
}

/** A broker property as the apache/kafka image's variable: `KAFKA_` + upper case, `-` → `___`, `_` → `__`, `.` → `_`. */
export function kafkaEnvironment(properties: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [`KAFKA_${key.replaceAll('-', '\u0000').replaceAll('_', '__').replaceAll('.', '_').replaceAll('\u0000', '___').toUpperCase()}`, value]),
  );
}

async function logTail(container: StartedTestContainer): Promise<string> {
  const stream = await container.logs({ tail: 60 });
  const chunks: string[] = [];
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer | string) => chunks.push(chunk.toString()));
    stream.on('end', () => resolve(chunks.join('')));
    setTimeout(() => resolve(chunks.join('')), 5_000).unref();
  });
}
