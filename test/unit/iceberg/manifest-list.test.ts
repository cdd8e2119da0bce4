import { describe, expect, it } from 'vitest';
import { ManifestContent } from '../../../src/iceberg/data-file.js';
import type { ManifestFile } from '../../../src/iceberg/data-file.js';
import { readManifestList, writeManifestList } from '../../../src/iceberg/manifest-list.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { parseHeader } from './avro-header.js';

function manifest(path: string, extra: Partial<ManifestFile> = {}): ManifestFile {
  return {
    manifestPath: path,
    manifestLength: 7032n,
    partitionSpecId: 0,
    content: ManifestContent.Data,
    sequenceNumber: 4n,
    minSequenceNumber: 2n,
    addedSnapshotId: 9223372036854775807n,
    addedFilesCount: 2,
    existingFilesCount: 1,
    deletedFilesCount: 0,
    addedRowsCount: 100n,
    existingRowsCount: 250n,
    deletedRowsCount: 0n,
    partitions: [
      { containsNull: false, containsNan: false, lowerBound: new Uint8Array([42, 0, 0, 0]), upperBound: new Uint8Array([0x39, 5, 0, 0]) },
      { containsNull: true, containsNan: null, lowerBound: null, upperBound: null },
    ],
    keyMetadata: null,
    firstRowId: null,
    ...extra,
  };
}

describe('manifest list', () => {
  it('round-trips v2 lists with the snapshot metadata keys', () => {
    const manifests = [manifest('s3://b/t/metadata/a-m0.avro'), manifest('s3://b/t/metadata/a-m1.avro', { content: ManifestContent.Deletes, partitions: [], keyMetadata: new Uint8Array([1]) })];
    const { bytes, addedRows } = writeManifestList({ manifests, snapshotId: 3051729675574597004n, sequenceNumber: 4n, formatVersion: 2 });
    expect(addedRows).toBeUndefined();
    const { metadata } = parseHeader(bytes);
    expect(metadata).toMatchObject({ 'snapshot-id': '3051729675574597004', 'parent-snapshot-id': 'null', 'sequence-number': '4', 'format-version': '2', 'avro.codec': 'deflate' });
    expect(metadata['first-row-id']).toBeUndefined();
    expect(JSON.parse(metadata['avro.schema']!).name).toBe('manifest_file');
    expect(readManifestList(bytes, 'snap.avro')).toEqual(manifests);
  });

  it('writes the parent snapshot id when there is one', () => {
    const { bytes } = writeManifestList({ manifests: [], snapshotId: 2n, parentSnapshotId: 1n, sequenceNumber: 2n, formatVersion: 2 });
    expect(parseHeader(bytes).metadata['parent-snapshot-id']).toBe('1');
    expect(readManifestList(bytes, 'empty.avro')).toEqual([]);
  });

  it('assigns first_row_id to v3 data manifests in list order (§3.4)', () => {
    const manifests = [
      manifest('m0'),
      manifest('m1', { content: ManifestContent.Deletes, firstRowId: 5n }),
      manifest('m2', { firstRowId: 7n }),
      manifest('m3', { addedRowsCount: 25n, existingRowsCount: 0n }),
    ];
    const written = writeManifestList({ manifests, snapshotId: 8n, sequenceNumber: 3n, formatVersion: 3, firstRowId: 1000n });
    expect(written.manifests.map((m) => m.firstRowId)).toEqual([1000n, null, 7n, 1350n]);
    expect(written.addedRows).toBe(375n); // 100 + 250 for m0, 25 for m3
    expect(parseHeader(written.bytes).metadata['first-row-id']).toBe('1000');
    expect(readManifestList(written.bytes, 'v3.avro')).toEqual(written.manifests);
  });

  it('needs the first row id for v3', () => {
    expect(() => writeManifestList({ manifests: [], snapshotId: 8n, sequenceNumber: 3n, formatVersion: 3 })).toThrow(IcebergFormatError);
  });
});
