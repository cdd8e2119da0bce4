/**
 * Reads the positions of a deletion vector from its Puffin file, fetching only the blob the
 * manifest entry points at (`content_offset` / `content_size_in_bytes`) when the FileIO can
 * read a byte range.
 */
import { IcebergFormatError } from '../../errors.js';
import type { FileIO } from '../file-io.js';
import { decodeDeletionVector } from './deletion-vector.js';

export interface DeletionVectorFile {
  readonly filePath: string;
  readonly contentOffset?: bigint;
  readonly contentSizeInBytes?: bigint;
  readonly referencedDataFile?: string;
  /** The entry's record count: when given, the vector must hold exactly this many positions (as Java checks). */
  readonly recordCount?: bigint;
}

export async function readDeletionVector(io: FileIO, file: DeletionVectorFile): Promise<BigInt64Array> {
  const { filePath, contentOffset, contentSizeInBytes } = file;
  const of = file.referencedDataFile === undefined ? '' : ` of data file ${file.referencedDataFile}`;
  const context = { file: filePath, referencedDataFile: file.referencedDataFile, contentOffset, contentSizeInBytes };
  if (contentOffset === undefined || contentSizeInBytes === undefined) {
    throw new IcebergFormatError(`Deletion vector${of} in Puffin file ${filePath} has no content_offset/content_size_in_bytes: cannot locate its blob`, { context });
  }
  if (contentOffset < 0n || contentSizeInBytes < 0n || contentOffset + contentSizeInBytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new IcebergFormatError(`Deletion vector${of} in Puffin file ${filePath} has an invalid blob range (offset ${contentOffset}, size ${contentSizeInBytes})`, { context });
  }
  const offset = Number(contentOffset);
  const length = Number(contentSizeInBytes);
  let blob: Uint8Array;
  if (io.readRange !== undefined) {
    blob = length === 0 ? new Uint8Array(0) : await io.readRange(filePath, offset, length);
  } else {
    const whole = await io.read(filePath);
    blob = whole.subarray(Math.min(offset, whole.length), Math.min(offset + length, whole.length));
  }
  if (blob.length !== length) {
    throw new IcebergFormatError(`Deletion vector${of} in Puffin file ${filePath} is truncated: its blob at offset ${offset} should have ${length} bytes, the file has ${blob.length} there`, {
      context,
    });
  }
  const where = `Puffin file ${filePath} (deletion vector${of} at offset ${offset}, ${length} bytes)`;
  const positions = decodeDeletionVector(blob, where);
  if (file.recordCount !== undefined && BigInt(positions.length) !== file.recordCount) {
    throw new IcebergFormatError(`Deletion vector in ${where} holds ${positions.length} positions, but its manifest entry's record_count is ${file.recordCount}`, {
      context: { ...context, recordCount: file.recordCount, cardinality: positions.length },
    });
  }
  return positions;
}
