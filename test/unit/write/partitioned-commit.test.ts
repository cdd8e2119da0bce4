/**
 * Partitioned files through the commit path on the real SQLite catalog: each manifest entry
 * carries its file's tuple, the manifest names its spec, and the manifest list holds partition
 * field summaries (nulls, bounds over the tuples). After partition evolution the added files of
 * two specs go into one manifest per spec.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { readContainer } from '../../../src/iceberg/avro/container.js';
import { compareValues } from '../../../src/iceberg/bounds.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { partitionType, readManifest } from '../../../src/iceberg/manifest.js';
import { decodePartitionSummaries } from '../../../src/iceberg/manifest-list.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema, defaultSpec, specById } from '../../../src/iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { writeAddedManifests } from '../../../src/table/pending-manifests.js';
import { manifestsOf, snapshotOf } from '../../../src/table/scan.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'events' };
const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'ts', required: false, type: primitive('timestamptz') },
  { name: 'region', required: false, type: primitive('string') },
]);
const SOURCE = `SELECT CASE WHEN range % 10 = 0 THEN NULL ELSE range END::BIGINT AS id,
                       TIMESTAMPTZ '2024-02-27 00:00:00+00' + to_hours(range % 120) AS ts,
                       ['eu', 'us', NULL][range % 3 + 1] AS region
                FROM range(5000)`;

let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;

beforeEach(async () => {
  ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'partitioned-commit', namespaces: [['db']] }));
  await catalog.createTable(ID, {
    schema: { schemaId: 0, identifierFieldIds: [], fields },
    partitionSpec: {
      specId: 0,
      fields: [
        { name: 'ts_day', transform: 'day', sourceId: 2, fieldId: 1000 },
        { name: 'id_bucket', transform: 'bucket[16]', sourceId: 1, fieldId: 1001 },
      ],
    },
  });
});

afterEach(() => warehouse.close());

async function writeUnderDefaultSpec(metadata: TableMetadata, query = SOURCE): Promise<DataFile[]> {
  return writePartitionedDataFiles({
    session,
    query,
    schema: currentSchema(metadata),
    spec: defaultSpec(metadata),
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
}

const key = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

describe('partitioned commits', () => {
  it('writes tuples into manifest entries and partition summaries into the manifest list', async () => {
    const { metadata } = await catalog.loadTable(ID);
    const files = await writeUnderDefaultSpec(metadata);
    const result = await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    expect(result.snapshot.summary['changed-partition-count']).toBe(String(new Set(files.map((f) => key([...f.partition]))).size));

    const table = await catalog.loadTable(ID);
    const [manifest, ...others] = await manifestsOf(io, snapshotOf(table.metadata)!);
    expect(others).toEqual([]);
    expect(manifest!.partitionSpecId).toBe(0);
    const entries = readManifest(await io.read(manifest!.manifestPath), manifest!.manifestPath, {
      snapshotId: manifest!.addedSnapshotId,
      sequenceNumber: manifest!.sequenceNumber,
    });
    const written = new Map(files.map((f) => [f.filePath, key([...f.partition])]));
    expect(new Map(entries.map((e) => [e.dataFile.filePath, key([...e.dataFile.partition])]))).toEqual(written);

    const { metadata: header } = readContainer(await io.read(manifest!.manifestPath), manifest!.manifestPath);
    expect(JSON.parse(header['partition-spec']!)).toEqual([
      { name: 'ts_day', transform: 'day', 'source-id': 2, 'field-id': 1000 },
      { name: 'id_bucket', transform: 'bucket[16]', 'source-id': 1, 'field-id': 1001 },
    ]);

    const type = partitionType(specById(table.metadata, 0)!, currentSchema(table.metadata));
    const summaries = decodePartitionSummaries(type, manifest!.partitions ?? [], manifest!.manifestPath);
    type.forEach((field, i) => {
      const values = files.map((f) => f.partition.get(field.fieldId) ?? null);
      const present = values.filter((v) => v !== null).sort((a, b) => compareValues(field.type, a, b));
      expect(summaries[i]).toEqual({
        containsNull: values.includes(null),
        containsNan: false,
        lowerBound: present[0],
        upperBound: present.at(-1),
      });
    });
    // id is null on every 10th row, so bucket has a null partition; days are 2024-02-27 … 2024-03-02
    expect(summaries[1]!.containsNull).toBe(true);
    expect([summaries[0]!.lowerBound, summaries[0]!.upperBound]).toEqual([19780, 19784]);
  });

  it('writes one manifest per partition spec for files added under two specs', async () => {
    const before = (await catalog.loadTable(ID)).metadata;
    const oldSpecFiles = await writeUnderDefaultSpec(before, `${SOURCE} LIMIT 300`);
    await catalog.commitTable(ID, [], [
      { action: 'add-spec', spec: { specId: -1, fields: [{ name: 'region', transform: 'identity', sourceId: 3, fieldId: 1002 }] } },
      { action: 'set-default-spec', specId: -1 },
    ]);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.defaultSpecId).toBe(1);
    const newSpecFiles = await writeUnderDefaultSpec(metadata, `${SOURCE} LIMIT 300`);
    expect(newSpecFiles.every((f) => f.specId === 1 && /\/region=(eu|us|null)\//.test(f.filePath))).toBe(true);

    const pending = await writeAddedManifests(
      { io, metadata, snapshotId: 42n, commitId: 'c0ffee' },
      [...newSpecFiles, ...oldSpecFiles],
      0,
    );
    expect(pending.map((p) => p.file.partitionSpecId)).toEqual([0, 1]);
    expect(new Set(pending.map((p) => p.file.manifestPath)).size).toBe(2);
    for (const p of pending) {
      const entries = readManifest(await io.read(p.file.manifestPath), p.file.manifestPath, { snapshotId: 42n, sequenceNumber: 1n });
      const expected = p.file.partitionSpecId === 0 ? oldSpecFiles : newSpecFiles;
      expect(entries.map((e) => e.dataFile.filePath).sort()).toEqual(expected.map((f) => f.filePath).sort());
      expect(entries.every((e) => e.dataFile.specId === p.file.partitionSpecId)).toBe(true);
      expect(p.file.partitions).toHaveLength(p.file.partitionSpecId === 0 ? 2 : 1);
      expect(p.file.addedRowsCount).toBe(expected.reduce((n, f) => n + f.recordCount, 0n));
    }
  });
});
