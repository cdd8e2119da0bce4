/**
 * The container images of the stack's services, under the names their upstream projects publish
 * (docker/compose.yaml uses the same; a unit test keeps them equal), at the versions the local
 * stack runs. test/docker/stack-images.ts makes them where no registry serves them.
 */
import { KAFKA_VERSION } from './kafka.js';
import { MINIO_MODULE_VERSION } from './minio.js';
import { motoVersion } from './moto.js';
import { NESSIE_VERSION } from './nessie.js';
import { ICEBERG_OPEN_API_VERSION } from './rest-catalog.js';
import { TRINO_VERSION } from './trino.js';

export const SERVICE_IMAGES = {
  /** MinIO's community edition ships no image of it: docker/minio/Dockerfile builds this module version. */
  minio: `thund-dev/minio:${MINIO_MODULE_VERSION}`,
  'iceberg-rest-fixture': `apache/iceberg-rest-fixture:${ICEBERG_OPEN_API_VERSION}`,
  kafka: `apache/kafka:${KAFKA_VERSION}`,
  trino: `trinodb/trino:${TRINO_VERSION}`,
  nessie: `ghcr.io/projectnessie/nessie:${NESSIE_VERSION}`,
  get moto(): string {
    return `motoserver/moto:${motoVersion()}`;
  },
} as const;
