/** What is really stored under an s3:// prefix on the test stack's MinIO, read beside our own FileIO. */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { parseS3Location } from '../../../connectors/storage/s3-file-io.js';
import { testS3Client } from '../../stack/s3-env.js';

/** Keys under `location` (an s3://bucket/prefix), relative to it and sorted. */
export async function objectsUnder(location: string): Promise<string[]> {
  const { bucket, key } = parseS3Location(location);
  const prefix = `${key.replace(/\/+$/, '')}/`;
  const client = testS3Client();
  const keys: string[] = [];
  try {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key.slice(prefix.length));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  } finally {
    client.destroy();
  }
  return keys.sort();
}
