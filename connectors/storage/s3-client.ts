/**
 * The SDK client S3FileIO talks through, with the SDK's own retry strategy set explicitly: how
 * many attempts and how long to back off between them, instead of whatever the environment says;
 * and a timeout on every request's connection and on a socket gone quiet.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { REGISTER_SENT_AWS_CREDENTIALS, registerSentAwsCredentials } from '../../src/aws-request-secrets.js';
import { registerAwsKeys } from '../../src/secrets.js';
import type { S3FileIOOptions, S3TransferSettings } from './s3-options.js';

export function createS3Client(options: S3FileIOOptions, settings: S3TransferSettings): S3Client {
  // Short-lived: besides configured keys (registered for good where they are read), these are the
  // keys a REST catalog vends, which replace each other.
  if (options.credentials !== undefined) registerAwsKeys(options.credentials, true);
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
    forcePathStyle: options.forcePathStyle ?? false,
    maxAttempts: settings.maxAttempts,
    retryStrategy: new ConfiguredRetryStrategy(settings.maxAttempts, (retry) => backoffDelayMs(retry, settings)),
    // Without them a store that stops answering holds a request for ever.
    requestHandler: { connectionTimeout: settings.connectTimeoutMs, socketTimeout: settings.idleTimeoutMs },
  });
  client.middlewareStack.add(registerSentAwsCredentials, REGISTER_SENT_AWS_CREDENTIALS);
  return client;
}

/** Exponential backoff with jitter, so writers that failed together do not retry together. */
export function backoffDelayMs(retry: number, settings: Pick<S3TransferSettings, 'retryBaseDelayMs' | 'maxRetryDelayMs'>): number {
  const ceiling = Math.min(settings.maxRetryDelayMs, settings.retryBaseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
