/**
 * Writes v3 deletion vectors: one Puffin file per call holding a `deletion-vector-v1` blob for
 * each data file, and the delete-file entry of each blob (content position deletes, format
 * PUFFIN, the data file's spec and partition, `referenced_data_file`, and the blob's offset and
 * length in the Puffin file). A v3 table never gets a new position delete file.
 */
import { randomUUID } from 'node:crypto';
import { FlowError } from '../errors.js';
import { DataFileContent, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { deletionVectorBlob, writePuffinFile } from '../iceberg/puffin/puffin-file.js';

export interface DeletionVectorInput {
  /** The data file the positions delete from. */
  readonly dataFile: DataFile;
  /** Every deleted position of the file (earlier vectors merged in), ascending and unique. */
  readonly positions: BigInt64Array;
}

export interface DeletionVectorWriteRequest {
  readonly io: FileIO;
  readonly dataLocation: string;
  readonly vectors: readonly DeletionVectorInput[];
  readonly writerName: string;
}

export async function writeDeletionVectors(request: DeletionVectorWriteRequest): Promise<DataFile[]> {
  const vectors = request.vectors.filter((vector) => vector.positions.length > 0);
  if (vectors.length === 0) return [];
  const puffin = writePuffinFile(vectors.map((vector) => deletionVectorBlob(vector.dataFile.filePath, vector.positions)));
  const location = `${request.dataLocation.replace(/\/+$/, '')}/${randomUUID()}-deletes.puffin`;
  try {
    await request.io.writeNew(location, puffin.bytes);
  } catch (error) {
    throw new FlowError(`Writing deletion vectors for ${request.writerName} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      context: { writer: request.writerName, file: location },
    });
  }
  return vectors.map((vector, i) => {
    const blob = puffin.blobs[i]!;
    return {
      content: DataFileContent.PositionDeletes,
      filePath: location,
      fileFormat: 'PUFFIN',
      specId: vector.dataFile.specId,
      partition: vector.dataFile.partition,
      recordCount: BigInt(vector.positions.length),
      fileSizeInBytes: BigInt(puffin.bytes.length),
      referencedDataFile: vector.dataFile.filePath,
      contentOffset: blob.offset,
      contentSizeInBytes: blob.length,
    };
  });
}
