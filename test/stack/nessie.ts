/**
 * Project Nessie, a REST catalog server nobody here wrote, as a second REST catalog of the test
 * stack: the `nessie-quarkus` runner jar from Maven Central (0.100+ is not published there) on
 * Java 25, an in-memory version store, and a warehouse in the stack's MinIO bucket. Its Iceberg
 * REST API is under `/iceberg`; its `/v1/config` names the branch and warehouse as the prefix.
 * Asked for vended credentials, it vends MinIO session keys.
 *
 * Every socket binds 127.0.0.1 on a free port (Quarkus's management interface defaults to 9000).
 * The settings go into `config/application.properties` of the working directory (Quarkus reads it),
 * readable by the owner only: the MinIO key is `urn:nessie-secret:quarkus:thund-minio`, whose
 * `.name` and `.secret` are there, never on the command line or in the log.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java25 } from './java.js';
import { mavenArtifact } from './maven.js';
import { httpOk, runDir, startProcess, twoFreePorts, waitUntilReady } from './process.js';
import type { RestCatalogStorage } from './rest-catalog.js';
import type { RunningService } from './service.js';

export const NESSIE_VERSION = '0.99.0';

const READY_TIMEOUT_MS = 180_000;
/** The Quarkus secret name the S3 access key is read from (`<name>.name`, `<name>.secret`). */
const KEY_SECRET = 'thund-minio';
const WAREHOUSE = 'warehouse';

export interface RunningNessie extends RunningService {
  /** The Iceberg REST base (`…/iceberg`), as a REST catalog's `uri`. */
  readonly uri: string;
}

export async function startNessie(storage: RestCatalogStorage): Promise<RunningNessie> {
  const [java, jar] = await Promise.all([
    java25('Nessie'),
    mavenArtifact({ groupId: 'org.projectnessie.nessie', artifactId: 'nessie-quarkus', version: NESSIE_VERSION, classifier: 'runner' }),
  ]);
  const [port, managementPort] = await twoFreePorts();
  const dir = runDir(`nessie-${port}`);
  const properties = nessieProperties(storage, port, managementPort);
  mkdirSync(join(dir, 'config'), { recursive: true });
  const lines = Object.entries(properties).map(([key, value]) => `${key}=${value.replaceAll('\\', '\\\\')}\n`);
  writeFileSync(join(dir, 'config', 'application.properties'), lines.join(''), { mode: 0o600 });
  const service = startProcess({ name: `nessie-${port}`, command: java, args: ['-Xmx512m', '-Djava.awt.headless=true', '-jar', jar], cwd: dir });
  const uri = `http://127.0.0.1:${port}/iceberg`;
  await waitUntilReady(service, () => httpOk(`${uri}/v1/config`), READY_TIMEOUT_MS);
  return {
    name: 'nessie',
    version: `nessie ${NESSIE_VERSION}`,
    uri,
    env: { THUND_TEST_NESSIE_URI: uri },
    stop: () => service.stop(),
  };
}

/** Nessie's Quarkus settings: both sockets on 127.0.0.1, the warehouse in the stack's bucket, MinIO's key as a Quarkus secret. The containers lane passes them as the image's environment. */
export function nessieProperties(storage: RestCatalogStorage, port: number, managementPort: number): Record<string, string> {
  return {
    'quarkus.http.host': '127.0.0.1',
    'quarkus.http.port': String(port),
    'quarkus.management.host': '127.0.0.1',
    'quarkus.management.port': String(managementPort),
    'quarkus.otel.sdk.disabled': 'true',
    'quarkus.log.console.level': 'WARN',
    'nessie.version.store.type': 'IN_MEMORY',
    'nessie.catalog.default-warehouse': WAREHOUSE,
    [`nessie.catalog.warehouses.${WAREHOUSE}.location`]: `s3://${storage.bucket}/nessie/`,
    'nessie.catalog.service.s3.default-options.endpoint': storage.endpoint,
    'nessie.catalog.service.s3.default-options.path-style-access': 'true',
    'nessie.catalog.service.s3.default-options.region': storage.region,
    'nessie.catalog.service.s3.default-options.access-key': `urn:nessie-secret:quarkus:${KEY_SECRET}`,
    // Asked for vended credentials, Nessie gets session keys from MinIO's STS (AssumeRole; MinIO
    // ignores the role) and hands them out the older way, as s3.* keys in the table config.
    'nessie.catalog.service.s3.default-options.client-iam.enabled': 'true',
    'nessie.catalog.service.s3.default-options.client-iam.assume-role': 'arn:aws:iam::000000000000:role/thund-test',
    'nessie.catalog.service.s3.default-options.sts-endpoint': storage.endpoint,
    'nessie.catalog.service.s3.default-options.request-signing-enabled': 'false',
    [`${KEY_SECRET}.name`]: storage.accessKey,
    [`${KEY_SECRET}.secret`]: storage.secretKey,
  };
}
