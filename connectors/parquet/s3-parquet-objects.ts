/**
 * Which S3 objects a source path names: an exact key, a prefix ending in `/` (every `.parquet`
 * object under it, at any depth), or a glob (object-glob.ts) matched against keys listed from
 * the pattern's literal prefix. Each match is checked to end like a Parquet file (the footer
 * length and the `PAR1` magic, one ranged read of 8 bytes) before anything is downloaded.
 */
import { InvalidInputError, StorageError } from '../../src/errors.js';
import { globToRegExp, hasGlob, literalPrefix } from '../storage/object-glob.js';
import type { S3FileIO, S3ObjectEntry } from '../storage/s3-file-io.js';
import { parseS3Prefix } from '../storage/s3-location.js';

export async function matchS3Objects(io: S3FileIO, sourceName: string, pattern: string): Promise<S3ObjectEntry[]> {
  const parsed = parseS3Prefix(pattern);
  if (parsed === undefined || hasGlob(parsed.bucket)) {
    throw new InvalidInputError(`Source "${sourceName}": ${pattern} is not an S3 path of the form s3://bucket/key-or-glob`, {
      context: { source: sourceName, path: pattern },
    });
  }
  const scheme = pattern.slice(0, pattern.indexOf('://') + 3);
  const root = `${scheme}${parsed.bucket}/`;
  if (parsed.key === '' || parsed.key.endsWith('/')) {
    return collect(io.list(`${root}${parsed.key}`), (key) => key.toLowerCase().endsWith('.parquet'));
  }
  if (hasGlob(parsed.key)) {
    const matcher = globToRegExp(parsed.key);
    return collect(io.list(`${root}${literalPrefix(parsed.key)}`), (key) => matcher.test(key));
  }
  try {
    return [{ location: pattern, key: parsed.key, size: Number(await io.length(pattern)) }];
  } catch (error) {
    if (error instanceof StorageError && error.context['reason'] === 'not-found') return [];
    throw error;
  }
}

async function collect(listing: AsyncIterable<S3ObjectEntry>, keep: (key: string) => boolean): Promise<S3ObjectEntry[]> {
  const matches: S3ObjectEntry[] = [];
  for await (const entry of listing) {
    // "Folder" placeholder objects some tools create end in `/` and hold no data.
    if (!entry.key.endsWith('/') && keep(entry.key)) matches.push(entry);
  }
  return matches;
}

const MAGIC = 'PAR1';
/** 4-byte magic at the start, footer, 4-byte footer length, 4-byte magic at the end. */
const MIN_PARQUET_SIZE = 12;

/** Fails with InvalidInputError unless the object ends with a plausible footer length and `PAR1`. */
export async function checkLooksLikeParquet(io: S3FileIO, sourceName: string, entry: S3ObjectEntry): Promise<void> {
  const notParquet = (why: string) =>
    new InvalidInputError(`Source "${sourceName}": ${entry.location} is not a Parquet file (${why})`, {
      context: { source: sourceName, path: entry.location },
    });
  if (entry.size < MIN_PARQUET_SIZE) throw notParquet(`${entry.size} bytes`);
  const tail = await io.readRange(entry.location, entry.size - 8, 8);
  if (new TextDecoder().decode(tail.subarray(4, 8)) !== MAGIC) throw notParquet('no PAR1 magic at the end');
  const footerLength = new DataView(tail.buffer, tail.byteOffset, 4).getUint32(0, true);
  if (footerLength > entry.size - MIN_PARQUET_SIZE) throw notParquet(`footer length ${footerLength} exceeds the file`);
}
