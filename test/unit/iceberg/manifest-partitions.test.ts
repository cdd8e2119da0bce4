/**
 * Partition tuples in manifests and partition summaries in manifest lists: round trips with every
 * transform, the Avro layout the spec prescribes (r102 fields with partition field ids), and the
 * partition values other writers recorded in the shared fixtures.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareValues, decodeSingleValue } from '../../../src/iceberg/bounds.js';
import { DataFileContent, ManifestContent, ManifestEntryStatus } from '../../../src/iceberg/data-file.js';
import type { ManifestEntry, ManifestFile } from '../../../src/iceberg/data-file.js';
import { partitionType, readManifest, writeManifest } from '../../../src/iceberg/manifest.js';
import { decodePartitionSummaries, readManifestList, writeManifestList } from '../../../src/iceberg/manifest-list.js';
import { readTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { bindPartitionSpec, partitionTuple } from '../../../src/iceberg/partition-fields.js';
import { partitionPath } from '../../../src/iceberg/partition-values.js';
import type { PartitionSpec, TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { decimal, primitive } from '../../../src/iceberg/types.js';
import type { PrimitiveType, Schema } from '../../../src/iceberg/types.js';
import { parseHeader } from './avro-header.js';
import { microsOf } from './transforms-spec-vectors.js';

const SCHEMA: Schema = {
  schemaId: 3,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'ts', required: false, type: primitive('timestamptz') },
    { id: 3, name: 'name', required: false, type: primitive('string') },
    { id: 4, name: 'amount', required: false, type: decimal(10, 2) },
    { id: 5, name: 'd', required: false, type: primitive('date') },
    { id: 6, name: 'u', required: false, type: primitive('uuid') },
    { id: 7, name: 'b', required: false, type: primitive('binary') },
    { id: 8, name: 'n', required: false, type: primitive('int') },
  ],
};

const SPEC: PartitionSpec = {
  specId: 4,
  fields: [
    ['ts_day', 'day', 2],
    ['ts_hour', 'hour', 2],
    ['ts_month', 'month', 2],
    ['ts_year', 'year', 2],
    ['name_bucket', 'bucket[16]', 3],
    ['name_trunc', 'truncate[2]', 3],
    ['amount_trunc', 'truncate[50]', 4],
    ['d', 'identity', 5],
    ['u_bucket', 'bucket[8]', 6],
    ['b_trunc', 'truncate[3]', 7],
    ['n_null', 'void', 8],
    ['id_bucket', 'bucket[4]', 1],
  ].map(([name, transform, sourceId], i) => ({ name: name as string, transform: transform as string, sourceId: sourceId as number, fieldId: 1000 + i })),
};

/** The Avro type of each r102 field, from the result types (spec §5) and the Avro mapping (§2.3). */
const EXPECTED_AVRO: readonly unknown[] = [
  { type: 'int', logicalType: 'date' },
  'int',
  'int',
  'int',
  'int',
  'string',
  { type: 'fixed', name: 'decimal_10_2', size: 5, logicalType: 'decimal', precision: 10, scale: 2 },
  { type: 'int', logicalType: 'date' },
  'int',
  'bytes',
  'int',
  'int',
];

const INSTANT = microsOf('2017-11-16T22:31:08Z');
const SOURCE_ROWS: Record<number, unknown>[] = [
  { 1: 34n, 2: INSTANT, 3: 'iceberg', 4: 1065n, 5: 17486, 6: 'f79c3e09-677c-4bbd-a479-3f349cb785e7', 7: Uint8Array.of(0, 1, 2, 3), 8: 7 },
  { 1: -5n, 2: -1n, 3: 'ab', 4: -1n, 5: -1, 6: null, 7: Uint8Array.of(9), 8: null },
  { 1: 0n, 2: null, 3: null, 4: null, 5: null, 6: null, 7: null, 8: 1 },
];

function entryFor(partition: Map<number, unknown>, i: number): ManifestEntry {
  return {
    status: ManifestEntryStatus.Added,
    snapshotId: null,
    sequenceNumber: null,
    fileSequenceNumber: null,
    dataFile: {
      content: DataFileContent.Data,
      filePath: `s3://b/t/data/f${i}.parquet`,
      fileFormat: 'PARQUET',
      specId: SPEC.specId,
      partition,
      recordCount: 10n,
      fileSizeInBytes: 1000n,
    },
  };
}

describe('partition tuples in a written manifest', () => {
  const bound = bindPartitionSpec(SPEC, SCHEMA);
  const tuples = SOURCE_ROWS.map((row) => partitionTuple(bound, (id) => row[id] ?? null));
  const ptype = partitionType(SPEC, SCHEMA);
  const { bytes, summary } = writeManifest({
    entries: tuples.map(entryFor),
    spec: SPEC,
    partitionType: ptype,
    schema: SCHEMA,
    formatVersion: 2,
    content: ManifestContent.Data,
    snapshotId: 77n,
  });

  it('computes the spec values for the spec instant and the µs before the epoch', () => {
    expect([1000, 1001, 1002, 1003].map((id) => tuples[0]!.get(id))).toEqual([17486, 419686, 574, 47]);
    expect([1000, 1001, 1002, 1003].map((id) => tuples[1]!.get(id))).toEqual([-1, -1, -1, -1]);
    expect(tuples[0]!.get(1004)).toBe(9); // "iceberg" in bucket[16]
    expect(tuples[0]!.get(1006)).toBe(1050n); // 10.65 truncate[50] → 10.50
    expect(tuples[1]!.get(1006)).toBe(-50n);
    expect(tuples[0]!.get(1011)).toBe(2017239379 % 4); // long 34: (hash & MAX) % 4
    // Row 3 has only its id and n set: every field but id_bucket is null (n_null is void).
    expect([...tuples[2]!].filter(([, v]) => v !== null).map(([id]) => id)).toEqual([1011]);
    expect(tuples.map((t) => t.get(1010))).toEqual([null, null, null]);
  });

  it('writes r102 with the partition field ids, names and result types, and the spec metadata', () => {
    const { metadata } = parseHeader(bytes);
    const schema = JSON.parse(metadata['avro.schema']!) as { fields: { name: string; type: { fields: unknown[] } }[] };
    const dataFile = schema.fields.find((f) => f.name === 'data_file')!.type as { fields: { name: string; 'field-id': number; type: unknown }[] };
    const partition = dataFile.fields.find((f) => f.name === 'partition')!;
    expect(partition['field-id']).toBe(102);
    const r102 = partition.type as { name: string; fields: { name: string; 'field-id': number; type: unknown; default: unknown }[] };
    expect(r102.name).toBe('r102');
    expect(r102.fields.map((f) => [f.name, f['field-id'], f.type, f.default])).toEqual(
      SPEC.fields.map((f, i) => [f.name, f.fieldId, ['null', EXPECTED_AVRO[i]], null]),
    );
    expect(metadata['partition-spec-id']).toBe('4');
    expect(JSON.parse(metadata['partition-spec']!)).toEqual(
      SPEC.fields.map((f) => ({ name: f.name, transform: f.transform, 'source-id': f.sourceId, 'field-id': f.fieldId })),
    );
  });

  it('reads every partition value back', () => {
    const back = readManifest(bytes, 'm.avro', { snapshotId: 77n, sequenceNumber: 5n });
    expect(back.map((e) => e.dataFile.partition)).toEqual(tuples);
  });

  it('summarises each partition field in the manifest list (nulls, bounds in single-value form)', () => {
    const manifest: ManifestFile = { ...summary, manifestPath: 's3://b/t/metadata/m.avro', manifestLength: BigInt(bytes.length), sequenceNumber: 5n, minSequenceNumber: 5n };
    const list = writeManifestList({ manifests: [manifest], snapshotId: 77n, sequenceNumber: 5n, formatVersion: 2 });
    const [read] = readManifestList(list.bytes, 'snap.avro');
    const decoded = decodePartitionSummaries(ptype, read!.partitions!, 'snap.avro');
    // day: lower −1 (1969-12-31) → ff ff ff ff, upper 17486 (2017-11-16) → 4e 44 00 00 (spec §4).
    expect([...read!.partitions![0]!.lowerBound!]).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect([...read!.partitions![0]!.upperBound!]).toEqual([0x4e, 0x44, 0x00, 0x00]);
    for (const [i, f] of ptype.entries()) {
      const values = tuples.map((t) => t.get(f.fieldId)).filter((v) => v !== null);
      const sorted = [...values].sort((a, b) => compareValues(f.type, a, b));
      expect(decoded[i], f.name).toEqual({
        containsNull: tuples.some((t) => t.get(f.fieldId) === null),
        containsNan: false,
        lowerBound: sorted[0] ?? null,
        upperBound: sorted.at(-1) ?? null,
      });
    }
    expect(decoded[10]).toEqual({ containsNull: true, containsNan: false, lowerBound: null, upperBound: null }); // void
  });
});

describe('uuid partition summaries', () => {
  it("bound identity(uuid) values in Java's UUID order (two signed longs), which Java prunes manifests with", () => {
    // Java's ManifestEvaluator compares uuids as UUID.compareTo does (apache/iceberg#14216): bounds
    // in the unsigned byte order would make it skip this manifest for u = 00000000-….
    const spec: PartitionSpec = { specId: SPEC.specId, fields: [{ name: 'u', transform: 'identity', sourceId: 6, fieldId: 1000 }] };
    const ptype = partitionType(spec, SCHEMA);
    const values = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '7fffffff-ffff-ffff-8000-000000000000', '7fffffff-ffff-ffff-7fff-ffffffffffff'];
    const { bytes, summary } = writeManifest({
      entries: values.map((u, i) => entryFor(new Map([[1000, u]]), i)),
      spec,
      partitionType: ptype,
      schema: SCHEMA,
      formatVersion: 2,
      content: ManifestContent.Data,
      snapshotId: 77n,
    });
    const manifest: ManifestFile = { ...summary, manifestPath: 'm.avro', manifestLength: BigInt(bytes.length), sequenceNumber: 5n, minSequenceNumber: 5n };
    const [read] = readManifestList(writeManifestList({ manifests: [manifest], snapshotId: 77n, sequenceNumber: 5n, formatVersion: 2 }).bytes, 'snap.avro');
    const [u] = decodePartitionSummaries(ptype, read!.partitions!, 'snap.avro');
    // Signed: ffff… (-1) is the least; 7fff…-7fff… beats 7fff…-8000… on the signed low long.
    expect([u!.lowerBound, u!.upperBound]).toEqual(['ffffffff-ffff-ffff-ffff-ffffffffffff', '7fffffff-ffff-ffff-7fff-ffffffffffff']);
  });
});

// ---- partition values recorded by Spark/pyiceberg in the shared fixtures ----

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const DUCK_ROOT = join(FIXTURES, 'duckdb-iceberg');
const PERSISTENT = join(DUCK_ROOT, 'data/persistent');

function metadataDirs(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const p = join(dir, entry.name);
    if (entry.name === 'metadata') out.push(p);
    else if (entry.name !== 'data') metadataDirs(p, out);
  }
  return out;
}

/** Fixture paths are relative to duckdb-iceberg/ or to a parent of the table folder. */
function localPath(path: string, tableDir: string): string {
  const rel = path.replace(/^file:(\/\/)?/, '');
  if (rel.startsWith('/') && existsSync(rel)) return rel;
  for (let dir = tableDir; dir.startsWith(DUCK_ROOT); dir = dirname(dir)) {
    if (existsSync(join(dir, rel)) && statSync(join(dir, rel)).isFile()) return join(dir, rel);
  }
  throw new Error(`fixture file ${path} not found from ${tableDir}`);
}

interface FixtureTable {
  readonly dir: string;
  readonly meta: TableMetadata;
}

const unreadable: string[] = [];

/** Each table's newest metadata file that has a current snapshot. */
function partitionedTables(): FixtureTable[] {
  const out: FixtureTable[] = [];
  for (const metaDir of metadataDirs(PERSISTENT)) {
    const files = readdirSync(metaDir).filter((f) => f.endsWith('.metadata.json'));
    const metas = files.flatMap((f) => {
      try {
        return [readTableMetadata(readFileSync(join(metaDir, f)), f)];
      } catch (error) {
        unreadable.push(`${relative(PERSISTENT, metaDir)}/${f}: ${(error as Error).message}`);
        return [];
      }
    });
    const withSnapshot = metas.filter((m) => m.currentSnapshotId !== undefined);
    if (withSnapshot.length === 0) continue;
    const meta = withSnapshot.reduce((a, b) => (b.lastUpdatedMs > a.lastUpdatedMs ? b : a));
    const spec = meta.partitionSpecs.find((s) => s.specId === meta.defaultSpecId)!;
    if (spec.fields.length > 0) out.push({ dir: dirname(metaDir), meta });
  }
  return out;
}

/** The manifests of the current snapshot; `manifest` is null for v1 snapshots that list manifests inline. */
function currentEntries(table: FixtureTable): { manifest: ManifestFile | null; entries: ManifestEntry[] }[] {
  const snapshot = table.meta.snapshots.find((s) => s.snapshotId === table.meta.currentSnapshotId)!;
  const read = (path: string, m: ManifestFile | null): ManifestEntry[] =>
    readManifest(readFileSync(localPath(path, table.dir)), path, {
      snapshotId: m?.addedSnapshotId ?? snapshot.snapshotId,
      sequenceNumber: m?.sequenceNumber ?? 0n,
      ...(m === null ? {} : { partitionSpecId: m.partitionSpecId }),
    });
  if (snapshot.manifestList === '') return (snapshot.manifests ?? []).map((path) => ({ manifest: null, entries: read(path, null) }));
  const list = readManifestList(readFileSync(localPath(snapshot.manifestList, table.dir)), snapshot.manifestList);
  return list.map((manifest) => ({ manifest, entries: read(manifest.manifestPath, manifest) }));
}

const specOf = (table: FixtureTable, specId: number): PartitionSpec => table.meta.partitionSpecs.find((s) => s.specId === specId)!;

describe('partition values of the foreign fixtures', () => {
  const tables = partitionedTables();
  const byName = (name: string): FixtureTable => {
    const t = tables.find((x) => x.dir.includes(`/${name}/`) || x.dir.endsWith(`/${name}`));
    expect(t, name).toBeDefined();
    return t!;
  };

  it('finds the partitioned tables, with bucket and day transforms among them', () => {
    // Only the deliberately broken BigQuery table is unreadable.
    expect(unreadable.every((u) => u.startsWith('big_query_error/')), unreadable.join('\n')).toBe(true);
    expect(tables.length).toBeGreaterThanOrEqual(16);
    const transforms = new Set(tables.flatMap((t) => t.meta.partitionSpecs.flatMap((s) => s.fields.map((f) => parseTransform(f.transform).kind))));
    expect([...transforms].sort()).toEqual(['bucket', 'day', 'identity']);
  });

  it('recompute every recorded partition value from the data file bounds of its source column', () => {
    let checked = 0;
    for (const table of tables) {
      const schema = table.meta.schemas.find((s) => s.schemaId === table.meta.currentSchemaId)!;
      for (const { entries } of currentEntries(table)) {
        for (const e of entries.filter((x) => x.dataFile.content === DataFileContent.Data)) {
          for (const f of bindPartitionSpec(specOf(table, e.dataFile.specId), schema)) {
            const recorded = e.dataFile.partition.get(f.field.fieldId);
            const lower = e.dataFile.lowerBounds?.get(f.field.sourceId);
            const upper = e.dataFile.upperBounds?.get(f.field.sourceId);
            const where = `${relative(PERSISTENT, table.dir)} ${e.dataFile.filePath} ${f.field.name}`;
            if (lower === undefined || upper === undefined) {
              expect(e.dataFile.nullValueCounts?.get(f.field.sourceId), where).toBe(e.dataFile.recordCount);
              expect(recorded, where).toBeNull();
              continue;
            }
            // A file holds one partition, so both bounds transform to its value (bounds of
            // truncated strings would not, but no fixture partitions a string by truncate).
            const source = f.sourceType as PrimitiveType;
            expect(f.apply(decodeSingleValue(source, lower)), where).toEqual(recorded);
            expect(f.apply(decodeSingleValue(source, upper)), where).toEqual(recorded);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('name each data directory as Java does (partitionPath)', () => {
    let checked = 0;
    const covered = new Set<string>();
    for (const table of tables) {
      const schema = table.meta.schemas.find((s) => s.schemaId === table.meta.currentSchemaId)!;
      for (const { entries } of currentEntries(table)) {
        for (const e of entries) {
          const fields = bindPartitionSpec(specOf(table, e.dataFile.specId), schema).map((f) => ({ ...f, name: f.field.name, fieldId: f.field.fieldId }));
          const dir = /.*\/data\/(.+)\/[^/]+$/.exec(e.dataFile.filePath)?.[1];
          if (dir === undefined || !dir.includes('=')) continue; // writers free to choose other layouts
          expect(partitionPath(fields, e.dataFile.partition), e.dataFile.filePath).toBe(dir);
          for (const f of fields) covered.add(f.transform.kind === 'identity' ? f.sourceType.kind : f.transform.kind);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
    expect([...covered].sort()).toEqual(
      // (the fixture named partition_double has a float column)
      ['binary', 'boolean', 'bucket', 'date', 'day', 'decimal', 'fixed', 'float', 'int', 'long', 'string', 'time', 'timestamp', 'timestamptz'],
    );
    // The day and bucket tables are among them.
    expect(currentEntries(byName('map_stats')).flatMap((m) => m.entries.map((e) => /_day=[^/]+/.exec(e.dataFile.filePath)![0])).sort()).toEqual([
      '_day=2026-01-01',
      '_day=2026-01-02',
    ]);
  });

  it('agree with the partition summaries of their manifest lists', () => {
    let checked = 0;
    for (const table of tables) {
      const schema = table.meta.schemas.find((s) => s.schemaId === table.meta.currentSchemaId)!;
      for (const { manifest, entries } of currentEntries(table)) {
        if (manifest === null) continue; // no manifest list, so no summaries
        const ptype = partitionType(specOf(table, manifest.partitionSpecId), schema);
        const decoded = decodePartitionSummaries(ptype, manifest.partitions!, manifest.manifestPath);
        const live = entries.filter((e) => e.status !== ManifestEntryStatus.Deleted);
        if (live.length !== entries.length) continue; // summaries may still cover removed files
        for (const [i, f] of ptype.entries()) {
          const values = live.map((e) => e.dataFile.partition.get(f.fieldId) ?? null);
          const present = values.filter((v) => v !== null && !(typeof v === 'number' && Number.isNaN(v)));
          const sorted = [...present].sort((a, b) => compareValues(f.type, a, b));
          const where = `${manifest.manifestPath} ${f.name}`;
          expect(decoded[i]!.containsNull, where).toBe(values.includes(null));
          expect(decoded[i]!.lowerBound, where).toEqual(sorted[0] ?? null);
          expect(decoded[i]!.upperBound, where).toEqual(sorted.at(-1) ?? null);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('types the year/month/day/hour fields of the timestamptz_ns table by their result types', () => {
    const metaDir = join(PERSISTENT, 'timestamptz_ns/metadata');
    const file = readdirSync(metaDir).find((f) => f.endsWith('.metadata.json'))!;
    const meta = readTableMetadata(readFileSync(join(metaDir, file)), file);
    const spec = meta.partitionSpecs.find((s) => s.specId === meta.defaultSpecId)!;
    const schema = meta.schemas.find((s) => s.schemaId === meta.currentSchemaId)!;
    expect(partitionType(spec, schema).map((f) => [f.name, f.type])).toEqual([
      ['val_year', primitive('int')],
      ['val_month', primitive('int')],
      ['val_day', primitive('date')],
      ['val_hour', primitive('int')],
    ]);
    const bound = bindPartitionSpec(spec, schema);
    expect(bound.map((f) => f.sourceType.kind)).toEqual(['timestamptz_ns', 'timestamptz_ns', 'timestamptz_ns', 'timestamptz_ns']);
    // 2017-11-16T22:31:08.000001001Z in ns
    expect(bound.map((f) => f.apply(INSTANT * 1000n + 1001n))).toEqual([47, 574, 17486, 419686]);
  });
});
