import { describe, expect, it } from 'vitest';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import { DataFileContent, ManifestContent, ManifestEntryStatus } from '../../../src/iceberg/data-file.js';
import type { DataFile, ManifestEntry } from '../../../src/iceberg/data-file.js';
import { partitionType, readManifest, writeManifest } from '../../../src/iceberg/manifest.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import type { PrimitiveType, Schema } from '../../../src/iceberg/types.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { manifestEntrySchema } from '../../../src/iceberg/avro/manifest-schemas.js';
import { parseHeader } from './avro-header.js';

/** One source column per partitionable type, partitioned by identity. */
const TYPES: [string, PrimitiveType, unknown, unknown][] = [
  ['b', primitive('boolean'), true, false],
  ['i', primitive('int'), -7, 2147483647],
  ['l', primitive('long'), -9223372036854775808n, 9223372036854775807n],
  ['f', primitive('float'), 1.5, -0.25],
  ['d', primitive('double'), -1e300, 2.5],
  ['dec_small', decimal(9, 2), -99999n, 1420n],
  ['dec_big', decimal(38, 10), -(10n ** 38n - 1n), 12345678901234567890123456789n],
  ['dt', primitive('date'), 17486, -1],
  ['tm', primitive('time'), 81068000000n, 0n],
  ['ts', primitive('timestamp'), 1510871468000000n, -1n],
  ['tstz', primitive('timestamptz'), 1510871468000001n, 0n],
  ['tsns', primitive('timestamp_ns'), 1510871468000000001n, -1n],
  ['tstzns', primitive('timestamptz_ns'), 2n, 3n],
  ['s', primitive('string'), 'iceberg', '\u{1F600}x'],
  ['u', primitive('uuid'), 'f79c3e09-677c-4bbd-a479-3f349cb785e7', '00000000-0000-0000-0000-000000000001'],
  ['fx', fixed(4), new Uint8Array([0, 1, 2, 3]), new Uint8Array([255, 254, 253, 252])],
  ['bin', primitive('binary'), new Uint8Array([1, 2]), new Uint8Array([])],
];

const SCHEMA: Schema = {
  schemaId: 3,
  identifierFieldIds: [],
  fields: TYPES.map(([name, type], i) => ({ id: i + 1, name, required: false, type })),
};
const SPEC: PartitionSpec = {
  specId: 2,
  fields: TYPES.map(([name], i) => ({ sourceId: i + 1, fieldId: 1000 + i, name: `${name}-part`, transform: 'identity' })),
};

function dataFile(path: string, values: unknown[], extra: Partial<DataFile> = {}): DataFile {
  return {
    content: DataFileContent.Data,
    filePath: path,
    fileFormat: 'PARQUET',
    specId: SPEC.specId,
    partition: new Map(values.map((v, i) => [1000 + i, v])),
    recordCount: 10n,
    fileSizeInBytes: 4096n,
    ...extra,
  };
}

const METRICS: Partial<DataFile> = {
  columnSizes: new Map([[1, 100n], [2, 9223372036854775807n]]),
  valueCounts: new Map([[1, 10n]]),
  nullValueCounts: new Map([[1, 0n], [2, 3n]]),
  nanValueCounts: new Map([[4, 1n]]),
  lowerBounds: new Map([[1, new Uint8Array([0])], [2, new Uint8Array([1, 0, 0, 0])]]),
  upperBounds: new Map([[1, new Uint8Array([1])]]),
  keyMetadata: new Uint8Array([9, 9]),
  splitOffsets: [4n, 1048576n],
  sortOrderId: 0,
};

describe('partitionType', () => {
  it('maps transforms to their result types', () => {
    const schema: Schema = {
      schemaId: 0,
      identifierFieldIds: [],
      fields: [
        { id: 1, name: 'ts', required: true, type: primitive('timestamptz') },
        { id: 2, name: 'name', required: false, type: primitive('string') },
        { id: 3, name: 'amount', required: false, type: decimal(10, 2) },
      ],
    };
    const spec: PartitionSpec = {
      specId: 0,
      fields: [
        { sourceId: 1, fieldId: 1000, name: 'ts_day', transform: 'day' },
        { sourceId: 1, fieldId: 1001, name: 'ts_hour', transform: 'hour' },
        { sourceId: 1, fieldId: 1002, name: 'ts_month', transform: 'month' },
        { sourceId: 1, fieldId: 1003, name: 'ts_year', transform: 'year' },
        { sourceId: 2, fieldId: 1004, name: 'name_bucket', transform: 'bucket[16]' },
        { sourceId: 2, fieldId: 1005, name: 'name_trunc', transform: 'truncate[4]' },
        { sourceId: 3, fieldId: 1006, name: 'amount', transform: 'identity' },
        { sourceId: 3, fieldId: 1007, name: 'amount_null', transform: 'void' },
      ],
    };
    expect(partitionType(spec, schema).map((f) => [f.fieldId, f.name, f.type])).toEqual([
      [1000, 'ts_day', primitive('date')],
      [1001, 'ts_hour', primitive('int')],
      [1002, 'ts_month', primitive('int')],
      [1003, 'ts_year', primitive('int')],
      [1004, 'name_bucket', primitive('int')],
      [1005, 'name_trunc', primitive('string')],
      [1006, 'amount', decimal(10, 2)],
      [1007, 'amount_null', decimal(10, 2)],
    ]);
    expect(() => partitionType({ specId: 1, fields: [{ sourceId: 1, fieldId: 1000, name: 'x', transform: 'zorder' }] }, schema)).toThrow(
      IcebergFormatError,
    );
    expect(() => partitionType({ specId: 1, fields: [{ sourceId: 9, fieldId: 1000, name: 'x', transform: 'identity' }] }, schema)).toThrow(
      /source column 9/,
    );
  });
});

describe('writeManifest / readManifest', () => {
  const ptype = partitionType(SPEC, SCHEMA);
  const entries: ManifestEntry[] = [
    { status: ManifestEntryStatus.Added, snapshotId: null, sequenceNumber: null, fileSequenceNumber: null, dataFile: dataFile('s3://b/t/data/a.parquet', TYPES.map((t) => t[2]), METRICS) },
    { status: ManifestEntryStatus.Added, snapshotId: null, sequenceNumber: null, fileSequenceNumber: null, dataFile: dataFile('s3://b/t/data/b.parquet', TYPES.map((t) => t[3])) },
    { status: ManifestEntryStatus.Existing, snapshotId: 11n, sequenceNumber: 4n, fileSequenceNumber: 5n, dataFile: dataFile('s3://b/t/data/c.parquet', TYPES.map(() => null), { recordCount: 7n }) },
    { status: ManifestEntryStatus.Deleted, snapshotId: 12n, sequenceNumber: 2n, fileSequenceNumber: 2n, dataFile: dataFile('s3://b/t/data/d.parquet', TYPES.map((t) => t[2]), { recordCount: 3n }) },
  ];
  const snapshotId = 3051729675574597004n;

  it('round-trips every metric map and every partition type, applying inheritance', () => {
    const { bytes } = writeManifest({ entries, spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 2, content: ManifestContent.Data, snapshotId });
    const back = readManifest(bytes, 'm.avro', { snapshotId: 999n, sequenceNumber: 8n });
    expect(back).toHaveLength(4);
    // ADDED: snapshot id written, sequence numbers inherited from the manifest list.
    expect(back[0]).toEqual({ ...entries[0], snapshotId, sequenceNumber: 8n, fileSequenceNumber: 8n });
    expect(back[1]).toEqual({ ...entries[1], snapshotId, sequenceNumber: 8n, fileSequenceNumber: 8n });
    // EXISTING keeps its own values; DELETED gets the writing snapshot and keeps its numbers.
    expect(back[2]).toEqual(entries[2]);
    expect(back[3]).toEqual({ ...entries[3], snapshotId });
  });

  it('writes null sequence numbers for ADDED entries and the required metadata keys', () => {
    const { bytes } = writeManifest({ entries, spec: SPEC, partitionType: ptype, schema: SCHEMA, schemaJsonText: '{"x":1}', formatVersion: 2, content: ManifestContent.Data, snapshotId });
    const { metadata } = parseHeader(bytes);
    expect(metadata['schema']).toBe('{"x":1}');
    expect(metadata['schema-id']).toBe('3');
    expect(metadata['partition-spec-id']).toBe('2');
    expect(metadata['format-version']).toBe('2');
    expect(metadata['content']).toBe('data');
    expect(JSON.parse(metadata['partition-spec']!)[0]).toEqual({ name: 'b-part', transform: 'identity', 'source-id': 1, 'field-id': 1000 });
    // The header carries the full raw schema: every field id, element id and map key/value id.
    expect(JSON.parse(metadata['avro.schema']!)).toEqual(manifestEntrySchema(2, ptype));
    const header = metadata['avro.schema']!;
    for (const id of [0, 1, 2, 3, 4, 100, 102, 103, 104, 108, 117, 118, 125, 126, 127, 128, 129, 130, 131, 132, 135, 137, 138, 139, 140, 1000, 1016]) {
      expect(header).toContain(`"field-id":${id}`);
    }
    expect(header).toContain('"element-id":133');
    expect(header).toContain('"adjust-to-utc":true');
    // Reading with a different inherited sequence number shows nothing was pinned for ADDED.
    const again = readManifest(bytes, 'm.avro', { snapshotId: 1n, sequenceNumber: 77n });
    expect(again[0]!.sequenceNumber).toBe(77n);
    expect(again[2]!.sequenceNumber).toBe(4n);
  });

  it('derives the schema text from the schema when not given', () => {
    const { bytes } = writeManifest({ entries: [], spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 2, content: ManifestContent.Data, snapshotId });
    const schemaJson = JSON.parse(parseHeader(bytes).metadata['schema']!);
    expect(schemaJson['schema-id']).toBe(3);
    expect(schemaJson.fields).toHaveLength(TYPES.length);
    expect(readManifest(bytes, 'empty.avro', { snapshotId: 1n, sequenceNumber: 1n })).toEqual([]);
  });

  it('summarises counts and partition bounds over all entries', () => {
    const { summary } = writeManifest({ entries, spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 2, content: ManifestContent.Data, snapshotId });
    expect(summary).toMatchObject({
      partitionSpecId: 2,
      content: ManifestContent.Data,
      addedSnapshotId: snapshotId,
      addedFilesCount: 2,
      existingFilesCount: 1,
      deletedFilesCount: 1,
      addedRowsCount: 20n,
      existingRowsCount: 7n,
      deletedRowsCount: 3n,
      minDataSequenceNumber: 4n,
    });
    expect(summary.partitions).toHaveLength(TYPES.length);
    TYPES.forEach(([name, type, a, b], i) => {
      const s = summary.partitions[i]!;
      expect(s.containsNull, name).toBe(true);
      expect(s.containsNan, name).toBe(false);
      const lo = decodeSingleValue(type, s.lowerBound!);
      const hi = decodeSingleValue(type, s.upperBound!);
      expect(new Set([lo, hi].map(String)), name).toEqual(new Set([a, b].map(String)));
    });
    // Spot checks against the spec's single-value encoding vectors.
    expect([...summary.partitions[7]!.upperBound!]).toEqual([0x4e, 0x44, 0x00, 0x00]); // date 17486
    expect([...summary.partitions[5]!.upperBound!]).toEqual([0x05, 0x8c]); // decimal unscaled 1420
  });

  it('reports NaN partition values apart from the bounds', () => {
    const spec: PartitionSpec = { specId: 0, fields: [{ sourceId: 1, fieldId: 1000, name: 'd', transform: 'identity' }] };
    const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'd', required: true, type: primitive('double') }] };
    const mk = (v: number): ManifestEntry => ({
      status: ManifestEntryStatus.Added, snapshotId: null, sequenceNumber: null, fileSequenceNumber: null,
      dataFile: { ...dataFile(`f${v}`, []), specId: 0, partition: new Map([[1000, v]]) },
    });
    const { summary, bytes } = writeManifest({ entries: [mk(NaN), mk(2), mk(-0)], spec, partitionType: partitionType(spec, schema), schema, formatVersion: 2, content: ManifestContent.Data, snapshotId: 1n });
    expect(summary.partitions[0]).toMatchObject({ containsNull: false, containsNan: true });
    expect(Object.is(decodeSingleValue(primitive('double'), summary.partitions[0]!.lowerBound!), -0)).toBe(true);
    expect(decodeSingleValue(primitive('double'), summary.partitions[0]!.upperBound!)).toBe(2);
    const back = readManifest(bytes, 'nan.avro', { snapshotId: 1n, sequenceNumber: 1n });
    expect(back[0]!.dataFile.partition.get(1000)).toBeNaN();
  });

  it('writes delete manifests with v3 fields and assigns first row ids to data files on read', () => {
    const deletes: ManifestEntry[] = [
      {
        status: ManifestEntryStatus.Added, snapshotId: null, sequenceNumber: null, fileSequenceNumber: null,
        dataFile: { ...dataFile('s3://b/t/data/dv.puffin', TYPES.map((t) => t[2])), content: DataFileContent.PositionDeletes, fileFormat: 'PUFFIN', referencedDataFile: 's3://b/t/data/a.parquet', contentOffset: 4n, contentSizeInBytes: 40n },
      },
      {
        status: ManifestEntryStatus.Added, snapshotId: null, sequenceNumber: null, fileSequenceNumber: null,
        dataFile: { ...dataFile('s3://b/t/data/eq.parquet', TYPES.map((t) => t[3])), content: DataFileContent.EqualityDeletes, equalityIds: [1, 2] },
      },
    ];
    const del = writeManifest({ entries: deletes, spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 3, content: ManifestContent.Deletes, snapshotId: 5n });
    expect(parseHeader(del.bytes).metadata['content']).toBe('deletes');
    expect(readManifest(del.bytes, 'd.avro', { snapshotId: 5n, sequenceNumber: 3n }).map((e) => e.dataFile)).toEqual(deletes.map((e) => e.dataFile));

    const data: ManifestEntry[] = [
      { ...entries[0]!, dataFile: { ...entries[0]!.dataFile, recordCount: 5n } },
      { ...entries[2]!, dataFile: { ...entries[2]!.dataFile, firstRowId: 1000n } },
      { ...entries[1]!, dataFile: { ...entries[1]!.dataFile, recordCount: 6n } },
    ];
    const written = writeManifest({ entries: data, spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 3, content: ManifestContent.Data, snapshotId: 5n });
    const back = readManifest(written.bytes, 'v3.avro', { snapshotId: 5n, sequenceNumber: 3n, firstRowId: 100n });
    expect(back.map((e) => e.dataFile.firstRowId)).toEqual([100n, 1000n, 105n]);
  });

  it('rejects entries that break the spec, naming the file', () => {
    const base = { entries, spec: SPEC, partitionType: ptype, schema: SCHEMA, formatVersion: 2 as const, content: ManifestContent.Data, snapshotId };
    const existingWithoutSeq = { ...entries[2]!, sequenceNumber: null };
    expect(() => writeManifest({ ...base, entries: [existingWithoutSeq] })).toThrow(/c\.parquet.*explicit sequence numbers/);
    expect(() => writeManifest({ ...base, content: ManifestContent.Deletes })).toThrow(/delete manifest/);
    const wrongType = { ...entries[0]!, dataFile: { ...entries[0]!.dataFile, partition: new Map([...entries[0]!.dataFile.partition, [1001, 5n]]) } };
    expect(() => writeManifest({ ...base, entries: [wrongType] })).toThrow(/i-part \(int\) must be a 32-bit integer/);
    const missing = { ...entries[0]!, dataFile: { ...entries[0]!.dataFile, partition: new Map([[1000, true]]) } };
    expect(() => writeManifest({ ...base, entries: [missing] })).toThrow(/no value for partition field i-part/);
    const v3Only = { ...entries[0]!, dataFile: { ...entries[0]!.dataFile, firstRowId: 1n } };
    expect(() => writeManifest({ ...base, entries: [v3Only] })).toThrow(/format version 3/);
  });
});
