/**
 * The test stack's S3 (MinIO) as tests see it, read from the THUND_TEST_S3_* variables the global
 * setup provides: one place, so every test talks to it the same way and fails loudly without it.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { S3FileIOOptions } from '../../connectors/storage/s3-file-io.js';
import type { StorageConfig } from '../../src/app/connection-config.js';
import { requireServiceEnv } from './service.js';

export function testS3FileIOOptions(): S3FileIOOptions {
  return {
    endpoint: requireServiceEnv('THUND_TEST_S3_ENDPOINT'),
    region: requireServiceEnv('THUND_TEST_S3_REGION'),
    forcePathStyle: true,
    credentials: { accessKeyId: requireServiceEnv('THUND_TEST_S3_ACCESS_KEY'), secretAccessKey: requireServiceEnv('THUND_TEST_S3_SECRET_KEY') },
  };
}

export function testS3Bucket(): string {
  return requireServiceEnv('THUND_TEST_S3_BUCKET');
}

/** A raw S3 client on the stack's MinIO, for checks beside our own FileIO. */
export function testS3Client(): S3Client {
  return stackS3Client(testS3FileIOOptions());
}

/**
 * Every S3 client the stack makes. The AWS SDK prints a notice about Node 22 when its first client
 * is made on Node 20; the stack's setup runs outside the tests' environment (vitest.config.ts), so it
 * turns the notice off here, as the CLI does for itself.
 */
export function stackS3Client(config: S3ClientConfig): S3Client {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  return new S3Client(config);
}

/** A pipeline spec's `storage` block for the stack's MinIO: addresses from the environment, keys by variable name. */
export const TEST_S3_STORAGE_BLOCK = `storage:
  s3:
    endpoint: \${THUND_TEST_S3_ENDPOINT}
    region: \${THUND_TEST_S3_REGION}
    path_style: true
    access_key_id_env: THUND_TEST_S3_ACCESS_KEY
    secret_access_key_env: THUND_TEST_S3_SECRET_KEY
`;

/** The same storage block as a config object from code (the package API's openCatalog). */
export const TEST_S3_STORAGE_CONFIG: StorageConfig = {
  s3: {
    endpoint: '${THUND_TEST_S3_ENDPOINT}',
    region: '${THUND_TEST_S3_REGION}',
    path_style: true,
    access_key_id_env: 'THUND_TEST_S3_ACCESS_KEY',
    secret_access_key_env: 'THUND_TEST_S3_SECRET_KEY',
  },
};
