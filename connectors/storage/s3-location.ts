/**
 * `s3://bucket/key` locations (`s3a://` and `s3n://`, Hadoop's spellings of the same thing, are
 * accepted too). Keys are taken verbatim: Iceberg locations are never URL-decoded.
 */
import { StorageError } from '../../src/errors.js';

export interface S3Location {
  readonly bucket: string;
  readonly key: string;
}

const S3_SCHEMES = ['s3://', 's3a://', 's3n://'];

/** True for locations S3FileIO serves. */
export function isS3Location(location: string): boolean {
  return S3_SCHEMES.some((scheme) => location.startsWith(scheme));
}

/** `s3://bucket/some/key` → { bucket, key }. */
export function parseS3Location(location: string): S3Location {
  const parsed = parseS3Prefix(location);
  if (parsed !== undefined && parsed.key !== '') return parsed;
  throw new StorageError(`S3FileIO cannot serve ${location}: expected s3://bucket/key`, {
    context: { location, reason: 'unsupported-location' },
  });
}

/** `s3://bucket/`, `s3://bucket` or `s3://bucket/some/prefix` → { bucket, key: prefix }; undefined when not S3. */
export function parseS3Prefix(location: string): S3Location | undefined {
  const scheme = S3_SCHEMES.find((candidate) => location.startsWith(candidate));
  if (scheme === undefined) return undefined;
  const rest = location.slice(scheme.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (bucket === '') return undefined;
  return { bucket, key: slash < 0 ? '' : rest.slice(slash + 1) };
}
