/** Picks the FileIO that serves a table location by its scheme. */
import { InvalidInputError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { isLocalLocation, LocalFileIO } from './local-file-io.js';
import { isS3Location, S3FileIO, type S3FileIOOptions } from './s3-file-io.js';

export interface FileIoOptions {
  /** Needed for s3:// locations. */
  readonly s3?: S3FileIOOptions;
}

export function fileIoFor(location: string, options: FileIoOptions = {}): FileIO {
  if (isS3Location(location)) {
    if (options.s3 === undefined) {
      throw new InvalidInputError(`Location ${location} is on S3 but no S3 settings (region, endpoint, credentials) were given`, {
        context: { location },
      });
    }
    return new S3FileIO(options.s3);
  }
  if (isLocalLocation(location)) return new LocalFileIO();
  throw new InvalidInputError(`No storage for location ${location}: expected file:, an absolute path, or s3://`, {
    context: { location },
  });
}
