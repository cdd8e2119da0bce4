/**
 * A store that stops answering does not hold S3FileIO for ever: a request whose socket stays
 * silent past the idle timeout fails, is retried, and ends as a retryable StorageError naming the
 * location (what serve then rides out as a storage outage).
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { S3FileIO } from '../../../connectors/storage/s3-file-io.js';
import { StorageError } from '../../../src/errors.js';

it('fails a read from a store that accepts the connection and never answers, after the idle timeout and its retries', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket.on('error', () => undefined)));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const io = new S3FileIO({
    endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIATIMEOUTTEST', secretAccessKey: 'timeout-test-secret' },
    forcePathStyle: true,
    maxAttempts: 2,
    retryBaseDelayMs: 10,
    idleTimeoutMs: 400,
  });
  const started = performance.now();
  try {
    const error = await io.read('s3://bucket/data/part-0.parquet').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).retryable).toBe(true);
    expect((error as StorageError).message).toContain('s3://bucket/data/part-0.parquet');
    expect((error as StorageError).message).not.toContain('timeout-test-secret');
    // Two attempts of 400 ms of silence each, not the minutes a hung socket would take.
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(10_000);
    expect(sockets.length).toBe(2);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});
