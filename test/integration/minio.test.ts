/**
 * The MinIO server of the test stack, spoken to with @aws-sdk/client-s3 (the client Thund's S3
 * FileIO uses): an object written comes back byte for byte, lists under its prefix, and a ranged
 * read returns exactly the asked-for bytes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Client } from '../stack/s3-env.js';

let s3: S3Client;
let bucket: string;

beforeAll(() => {
  bucket = requireServiceEnv('THUND_TEST_S3_BUCKET');
  s3 = testS3Client();
});

afterAll(() => s3?.destroy());

describe('minio (test stack)', () => {
  it('has the warehouse bucket', async () => {
    const head = await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    expect(head.$metadata.httpStatusCode).toBe(200);
  });

  it('puts, gets, lists, reads a range of, and deletes an object', async () => {
    const prefix = `it-minio/${randomUUID()}/`;
    const key = `${prefix}data.bin`;
    // Every byte value, plus random bytes large enough to be more than one network chunk.
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(300_000)]);

    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/octet-stream' }));

    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(bytes.length).toBe(body.length);
    expect(bytes.equals(body)).toBe(true);

    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    expect(listed.Contents?.map((object) => [object.Key, object.Size])).toEqual([[key, body.length]]);

    const ranged = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=250-261' }));
    expect(Buffer.from(await ranged.Body!.transformToByteArray()).equals(body.subarray(250, 262))).toBe(true);

    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    const after = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    expect(after.KeyCount).toBe(0);
  });

  it('refuses wrong credentials', async () => {
    const stranger = new S3Client({
      endpoint: requireServiceEnv('THUND_TEST_S3_ENDPOINT'),
      region: requireServiceEnv('THUND_TEST_S3_REGION'),
      forcePathStyle: true,
      credentials: { accessKeyId: 'not-the-key', secretAccessKey: 'not-the-secret' },
    });
    try {
      await expect(stranger.send(new HeadBucketCommand({ Bucket: bucket }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    } finally {
      stranger.destroy();
    }
  });
});
