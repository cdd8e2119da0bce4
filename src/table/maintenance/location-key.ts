/**
 * One spelling per file, so a location a catalog wrote into metadata and the location a listing
 * returns compare equal: Hadoop's `s3a://`/`s3n://` are `s3://`; `file:/p`, `file://localhost/p`,
 * `file:///p` and a bare `/p` are `file:///p` (repeated slashes of a local path collapsed, as the
 * file system does). Object keys are kept verbatim: `a//b` and `a/b` are different S3 keys.
 */
export function locationKey(location: string): string {
  const s3 = /^s3[an]?:\/\//.exec(location);
  if (s3 !== null) return `s3://${location.slice(s3[0].length)}`;
  let path: string | undefined;
  if (location.startsWith('file://localhost/')) path = location.slice('file://localhost'.length);
  else if (location.startsWith('file:')) path = location.slice('file:'.length);
  else if (location.startsWith('/')) path = location;
  if (path === undefined) return location;
  return `file://${path.replace(/\/{2,}/g, '/')}`;
}

/** The key of a folder location, ending in `/` so that `t/` never matches `t2/…`. */
export function folderKey(location: string): string {
  const key = locationKey(location);
  return key.endsWith('/') ? key : `${key}/`;
}
