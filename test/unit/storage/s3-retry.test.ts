/**
 * S3FileIO's client retries through the SDK's retry strategy with the configured number of
 * attempts: a loopback HTTP server answers 503 a few times before it serves the object.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../connectors/storage/s3-client.js';
import { S3FileIO, type S3FileIOOptions } from '../../../connectors/storage/s3-file-io.js';
import { StorageError } from '../../../src/errors.js';

interface FlakyStore {
  readonly endpoint: string;
  /** Path (without the query), the SDK's attempt header and the Range header of every request. */
  readonly requests: { url: string; sdkRequest: string; range: string | undefined }[];
  close(): Promise<void>;
}

const BODY = new TextEncoder().encode('0123456789abcdef');
let store: FlakyStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** Answers 503 SlowDown to the first `failures` requests, then serves BODY (honouring a Range). */
async function flakyStore(failures: number): Promise<FlakyStore> {
  const requests: FlakyStore['requests'] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    requests.push({ url: (request.url ?? '').split('?')[0]!, sdkRequest: String(request.headers['amz-sdk-request'] ?? ''), range: request.headers.range });
    request.resume();
    if (requests.length <= failures) {
      response.writeHead(503, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>try again</Message></Error>');
      return;
    }
    const match = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    const bytes = match === null ? BODY : BODY.subarray(Number(match[1]), Number(match[2]) + 1);
    response.writeHead(match === null ? 200 : 206, { 'content-length': String(bytes.byteLength), etag: '"e"' });
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function ioFor(endpoint: string, extra: Partial<S3FileIOOptions>): S3FileIO {
  return new S3FileIO({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
    retryBaseDelayMs: 1,
    maxRetryDelayMs: 5,
    ...extra,
  });
}

describe('S3FileIO retries', () => {
  it('retries a 503 up to maxAttempts and then returns the object', async () => {
    store = await flakyStore(3);
    const io = ioFor(store.endpoint, { maxAttempts: 4 });
    try {
      expect(await io.read('s3a://bucket/some/key.bin')).toEqual(BODY);
      expect(store.requests.map((r) => r.url)).toEqual(Array(4).fill('/bucket/some/key.bin'));
      // The SDK announces each attempt and the configured maximum.
      expect(store.requests.map((r) => r.sdkRequest)).toEqual([1, 2, 3, 4].map((n) => `attempt=${n}; max=4`));
    } finally {
      io.close();
    }
  });

  it('gives up after maxAttempts with a retryable StorageError naming the location', async () => {
    store = await flakyStore(100);
    const io = ioFor(store.endpoint, { maxAttempts: 2 });
    try {
      const attempt = io.readRange('s3n://bucket/k.bin', 2, 3);
      await expect(attempt).rejects.toBeInstanceOf(StorageError);
      const error = (await attempt.catch((e: unknown) => e)) as StorageError;
      expect(error.message).toContain('s3n://bucket/k.bin');
      expect(error.retryable).toBe(true);
      expect(error.context['httpStatus']).toBe(503);
      expect(store.requests.map((r) => [r.range, r.sdkRequest])).toEqual([
        ['bytes=2-4', 'attempt=1; max=2'],
        ['bytes=2-4', 'attempt=2; max=2'],
      ]);
    } finally {
      io.close();
    }
  });

  it('reads a range after a retry', async () => {
    store = await flakyStore(1);
    const io = ioFor(store.endpoint, { maxAttempts: 2 });
    try {
      expect(await io.readRange('s3://bucket/k.bin', 10, 4)).toEqual(BODY.subarray(10, 14));
      expect(store.requests.map((r) => r.range)).toEqual(['bytes=10-13', 'bytes=10-13']);
    } finally {
      io.close();
    }
  });

  it('maxAttempts 1 turns retries off', async () => {
    store = await flakyStore(1);
    const io = ioFor(store.endpoint, { maxAttempts: 1 });
    try {
      await expect(io.read('s3://bucket/k.bin')).rejects.toBeInstanceOf(StorageError);
      expect(store.requests).toHaveLength(1);
    } finally {
      io.close();
    }
  });

  it('backs off exponentially with jitter, capped', () => {
    const settings = { retryBaseDelayMs: 100, maxRetryDelayMs: 1000 };
    for (let i = 0; i < 50; i++) {
      const first = backoffDelayMs(1, settings);
      expect(first).toBeGreaterThanOrEqual(50);
      expect(first).toBeLessThanOrEqual(100);
      const third = backoffDelayMs(3, settings);
      expect(third).toBeGreaterThanOrEqual(200);
      expect(third).toBeLessThanOrEqual(400);
      const capped = backoffDelayMs(10, settings);
      expect(capped).toBeGreaterThanOrEqual(500);
      expect(capped).toBeLessThanOrEqual(1000);
    }
  });
});
