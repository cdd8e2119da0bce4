/**
 * The same services as containers, for machines with a Docker engine (THUND_STACK=containers).
 * Each starter returns the RunningService shape and THUND_TEST_* variables of its local-process
 * twin, so the tests cannot tell the two apart.
 *
 * Not run on the project's own machines (they have no Docker engine); kept typechecked.
 */
import { randomBytes } from 'node:crypto';
import { MinioContainer } from '@testcontainers/minio';
import { KafkaContainer } from '@testcontainers/kafka';
import { GenericContainer, Network, Wait, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { MINIO_BUCKET, MINIO_REGION, runningMinio, type RunningMinio } from './minio.js';
import { MOTO_GLUE_LAUNCHER, motoVersion } from './moto.js';
import { NESSIE_VERSION, type RunningNessie } from './nessie.js';
import { ICEBERG_OPEN_API_VERSION, type RunningRestCatalog } from './rest-catalog.js';
import { stackS3Client } from './s3-env.js';
import type { RunningService } from './service.js';

/** MinIO stopped publishing community images after this release; the local build pins a later commit. */
export const MINIO_IMAGE = 'minio/minio:RELEASE.2025-09-07T16-13-09Z';
export const REST_FIXTURE_IMAGE = `apache/iceberg-rest-fixture:${ICEBERG_OPEN_API_VERSION}`;
export const NESSIE_IMAGE = `ghcr.io/projectnessie/nessie:${NESSIE_VERSION}`;
/** Confluent Platform 8.0 is Apache Kafka 4.0, KRaft only. */
export const KAFKA_IMAGE = 'confluentinc/cp-kafka:8.0.0';
/** The same moto release as the local venv's pin. */
export const motoImage = (): string => `motoserver/moto:${motoVersion()}`;

const MINIO_ALIAS = 'minio';
const MINIO_PORT = 9000;
const REST_PORT = 8181;
const NESSIE_PORT = 19120;
const KAFKA_PORT = 9093;
const MOTO_PORT = 5000;

/** One network per run so the REST fixture reaches MinIO by name; removed by `close`. */
export interface ContainerStack {
  startMinio(): Promise<RunningMinio>;
  startRestCatalog(minio: RunningMinio): Promise<RunningRestCatalog>;
  startNessie(minio: RunningMinio): Promise<RunningNessie>;
  startKafka(): Promise<RunningService>;
  startMoto(): Promise<RunningService>;
  close(): Promise<void>;
}

export function containerStack(): ContainerStack {
  let network: Promise<StartedNetwork> | undefined;
  const sharedNetwork = (): Promise<StartedNetwork> => (network ??= new Network().start());

  return {
    async startMinio() {
      const accessKey = `thund${randomBytes(6).toString('hex')}`;
      const secretKey = randomBytes(24).toString('base64url');
      const container = await new MinioContainer(MINIO_IMAGE)
        .withUsername(accessKey)
        .withPassword(secretKey)
        .withNetwork(await sharedNetwork())
        .withNetworkAliases(MINIO_ALIAS)
        .start();
      const endpoint = container.getConnectionUrl();
      const s3 = stackS3Client({ endpoint, region: MINIO_REGION, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
      try {
        await s3.send(new CreateBucketCommand({ Bucket: MINIO_BUCKET }));
      } catch (error) {
        await container.stop();
        throw error;
      } finally {
        s3.destroy();
      }
      return runningMinio({ version: MINIO_IMAGE, endpoint, accessKey, secretKey, stop: () => stopContainer(container) });
    },

    async startRestCatalog(minio) {
      const container = await new GenericContainer(REST_FIXTURE_IMAGE)
        .withNetwork(await sharedNetwork())
        .withExposedPorts(REST_PORT)
        .withEnvironment({
          CATALOG_WAREHOUSE: `s3://${minio.bucket}/`,
          CATALOG_IO__IMPL: 'org.apache.iceberg.aws.s3.S3FileIO',
          // Inside the network MinIO answers by its alias, not by the host-mapped port the tests use.
          CATALOG_S3_ENDPOINT: `http://${MINIO_ALIAS}:${MINIO_PORT}`,
          CATALOG_S3_PATH__STYLE__ACCESS: 'true',
          CATALOG_CLIENT_REGION: minio.region,
          AWS_ACCESS_KEY_ID: minio.accessKey,
          AWS_SECRET_ACCESS_KEY: minio.secretKey,
          AWS_REGION: minio.region,
        })
        .withWaitStrategy(Wait.forHttp('/v1/config', REST_PORT).forStatusCode(200))
        .start();
      const uri = `http://${container.getHost()}:${container.getMappedPort(REST_PORT)}`;
      return { name: 'rest-catalog', version: REST_FIXTURE_IMAGE, uri, env: { THUND_TEST_REST_URI: uri }, stop: () => stopContainer(container) };
    },

    async startNessie(minio) {
      // Quarkus reads each variable as the property of the same name; the key is a Quarkus secret.
      const container = await new GenericContainer(NESSIE_IMAGE)
        .withNetwork(await sharedNetwork())
        .withExposedPorts(NESSIE_PORT)
        .withEnvironment({
          'nessie.version.store.type': 'IN_MEMORY',
          'nessie.catalog.default-warehouse': 'warehouse',
          'nessie.catalog.warehouses.warehouse.location': `s3://${minio.bucket}/nessie/`,
          'nessie.catalog.service.s3.default-options.endpoint': `http://${MINIO_ALIAS}:${MINIO_PORT}`,
          // What Nessie tells clients (pyiceberg, Spark) outside the network.
          'nessie.catalog.service.s3.default-options.external-endpoint': minio.endpoint,
          'nessie.catalog.service.s3.default-options.path-style-access': 'true',
          'nessie.catalog.service.s3.default-options.region': minio.region,
          'nessie.catalog.service.s3.default-options.access-key': 'urn:nessie-secret:quarkus:thund-minio',
          // Vended credentials: session keys from MinIO's STS, as the local Nessie does.
          'nessie.catalog.service.s3.default-options.client-iam.enabled': 'true',
          'nessie.catalog.service.s3.default-options.client-iam.assume-role': 'arn:aws:iam::000000000000:role/thund-test',
          'nessie.catalog.service.s3.default-options.sts-endpoint': `http://${MINIO_ALIAS}:${MINIO_PORT}`,
          'nessie.catalog.service.s3.default-options.request-signing-enabled': 'false',
          'thund-minio.name': minio.accessKey,
          'thund-minio.secret': minio.secretKey,
        })
        .withWaitStrategy(Wait.forHttp('/iceberg/v1/config', NESSIE_PORT).forStatusCode(200))
        .start();
      const uri = `http://${container.getHost()}:${container.getMappedPort(NESSIE_PORT)}/iceberg`;
      return { name: 'nessie', version: NESSIE_IMAGE, uri, env: { THUND_TEST_NESSIE_URI: uri }, stop: () => stopContainer(container) };
    },

    async startKafka() {
      const container = await new KafkaContainer(KAFKA_IMAGE).withKraft().start();
      const brokers = `${container.getHost()}:${container.getMappedPort(KAFKA_PORT)}`;
      return { name: 'kafka', version: KAFKA_IMAGE, env: { THUND_TEST_KAFKA_BROKERS: brokers }, stop: () => stopContainer(container) };
    },

    async startMoto() {
      // The image's python runs the same patched launcher as the local moto (test/stack/moto.ts).
      const image = motoImage();
      const container = await new GenericContainer(image)
        .withCopyContentToContainer([{ content: MOTO_GLUE_LAUNCHER, target: '/thund/moto_glue_server.py' }])
        .withEntrypoint(['python3'])
        .withCommand(['/thund/moto_glue_server.py', '-H', '0.0.0.0', '-p', String(MOTO_PORT)])
        .withExposedPorts(MOTO_PORT)
        .withWaitStrategy(Wait.forHttp('/moto-api/', MOTO_PORT).forStatusCode(200))
        .start();
      const endpoint = `http://${container.getHost()}:${container.getMappedPort(MOTO_PORT)}`;
      return {
        name: 'moto',
        version: image,
        env: {
          THUND_TEST_GLUE_ENDPOINT: endpoint,
          THUND_TEST_AWS_ACCESS_KEY: 'testing',
          THUND_TEST_AWS_SECRET_KEY: 'testing',
          THUND_TEST_AWS_REGION: 'us-east-1',
        },
        stop: () => stopContainer(container),
      };
    },

    async close() {
      if (network !== undefined) await (await network).stop();
    },
  };
}

async function stopContainer(container: StartedTestContainer): Promise<void> {
  await container.stop();
}
