/**
 * The FileIOFactory the app hands to catalogs: S3FileIOs for the keys a catalog vends, with the
 * pipeline's own S3 settings (endpoint, region, path style, retries) where the catalog named none.
 */
import type { FileIOFactory, VendedStorage } from '../../src/iceberg/file-io.js';
import { isS3Location, S3FileIO, type S3FileIOOptions } from './s3-file-io.js';

/** Settings for S3 clients built from vended keys when the catalog does not name them; never keys. */
export type VendedS3Defaults = Omit<Partial<S3FileIOOptions>, 'credentials'>;

const DEFAULT_REGION = 'us-east-1';

export function s3FileIOFactory(defaults: VendedS3Defaults = {}): FileIOFactory {
  return {
    serves: isS3Location,
    withVendedStorage: (storage) => new S3FileIO(vendedS3Options(storage, defaults)),
  };
}

/** The catalog's endpoint, region and path style first, then `defaults`; the keys only from the catalog. */
export function vendedS3Options(storage: VendedStorage, defaults: VendedS3Defaults = {}): S3FileIOOptions {
  const endpoint = storage.endpoint ?? defaults.endpoint;
  return {
    ...defaults,
    region: storage.region ?? defaults.region ?? DEFAULT_REGION,
    ...(endpoint === undefined ? {} : { endpoint }),
    forcePathStyle: storage.pathStyle ?? defaults.forcePathStyle ?? false,
    credentials: {
      accessKeyId: storage.accessKeyId,
      secretAccessKey: storage.secretAccessKey,
      ...(storage.sessionToken === undefined ? {} : { sessionToken: storage.sessionToken }),
    },
  };
}
