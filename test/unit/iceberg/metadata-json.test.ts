import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../../src/iceberg/json.js';
import { decodeMetadataBytes, parseTableMetadata, readTableMetadata, serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { rejection } from './rejection.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const RUST = join(FIXTURES, 'iceberg-rust/crates/iceberg/testdata');
const RUST_TM = join(RUST, 'table_metadata');
const DUCKDB = join(FIXTURES, 'duckdb-iceberg/data/persistent');

const read = (path: string): string => readFileSync(path, 'utf8');


/** serialize → parse must give back the same domain object. */
function expectFixedPoint(text: string, source: string): void {
  const first = parseTableMetadata(text, source);
  const again = parseTableMetadata(serializeTableMetadata(first), `${source} (rewritten)`);
  expect(again).toEqual(first);
  // and the rewrite is stable byte for byte
  expect(serializeTableMetadata(again)).toBe(serializeTableMetadata(first));
}

describe('fixtures folder', () => {
  it('exists', () => {
    expect(existsSync(RUST_TM), `${RUST_TM} missing: set THUND_FIXTURES`).toBe(true);
    expect(existsSync(DUCKDB), `${DUCKDB} missing: set THUND_FIXTURES`).toBe(true);
  });
});

const VALID_RUST = [
  'table_metadata/TableMetadataV1Compat.json',
  'table_metadata/TableMetadataV1PartitionSpecsWithoutDefaultId.json',
  'table_metadata/TableMetadataV1SchemasWithoutCurrentId.json',
  'table_metadata/TableMetadataV1Valid.json',
  'table_metadata/TableMetadataV2Valid.json',
  'table_metadata/TableMetadataV2ValidMinimal.json',
  'table_metadata/TableMetadataV3ValidEncryption.json',
  'table_metadata/TableMetadataV3ValidMinimal.json',
  'example_empty_table_metadata_v2.json',
  'example_table_metadata_v2.json',
  'example_table_metadata_v2_deep_history.json',
  'example_table_metadata_v2_partition_evolution.json',
];

// file → fragments the error message must contain
const INVALID_RUST: Record<string, string[]> = {
  // v3 declared, but written in v1 form: the v2+ required lists are missing
  'TableMetadataUnsupportedVersion.json': ['schemas', 'required field is missing'],
  'TableMetadataV1NoValidSchema.json': ['current-schema-id', 'no valid schema'],
  'TableMetadataV2CurrentSchemaNotFound.json': ['current-schema-id', 'schema 2 not found'],
  'TableMetadataV2MissingLastPartitionId.json': ['last-partition-id', 'missing'],
  'TableMetadataV2MissingPartitionSpecs.json': ['partition-specs', 'missing'],
  'TableMetadataV2MissingSchemas.json': ['schemas', 'missing'],
  'TableMetadataV2MissingSortOrder.json': ['sort-orders', 'missing'],
};

describe('iceberg-rust table metadata fixtures', () => {
  it('every file is classified', () => {
    const all = readdirSync(RUST_TM).filter((f) => f.endsWith('.json'));
    const known = new Set([...VALID_RUST.map((f) => f.replace('table_metadata/', '')), ...Object.keys(INVALID_RUST)]);
    expect(all.filter((f) => !known.has(f))).toEqual([]);
  });

  it.each(VALID_RUST)('%s parses and rewrites to a fixed point', (file) => {
    expectFixedPoint(read(join(RUST, file)), file);
  });

  it.each(Object.entries(INVALID_RUST))('%s is rejected', (file, fragments) => {
    const error = rejection(() => parseTableMetadata(read(join(RUST_TM, file)), file));
    expect(error.message).toContain(file);
    for (const fragment of fragments) expect(error.message).toContain(fragment);
  });

  it('reads TableMetadataV2Valid with its int64 ids exact and main derived from current-snapshot-id', () => {
    const m = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV2Valid.json')), 'v2');
    expect(m.formatVersion).toBe(2);
    expect(m.currentSnapshotId).toBe(3055729675574597004n);
    expect(m.snapshots.map((s) => s.snapshotId)).toEqual([3051729675574597004n, 3055729675574597004n]);
    expect(m.snapshots[1]?.parentSnapshotId).toBe(3051729675574597004n);
    expect(m.snapshots[1]?.schemaId).toBe(1);
    expect(m.refs.get('main')).toEqual({ snapshotId: 3055729675574597004n, type: 'branch' });
    expect(m.lastSequenceNumber).toBe(34n);
    expect(m.lastUpdatedMs).toBe(1602638573590n);
    expect(m.schemas[1]?.identifierFieldIds).toEqual([1, 2]);
    expect(m.sortOrders[0]?.fields[1]).toEqual({ transform: 'bucket[4]', sourceId: 3, direction: 'desc', nullOrder: 'nulls-last' });
    expect(m.partitionSpecs[0]?.fields[0]).toEqual({ sourceId: 1, fieldId: 1000, name: 'x', transform: 'identity' });
    const rewritten = parseJson(serializeTableMetadata(m), 'out') as Record<string, unknown>;
    expect(Object.keys(rewritten).slice(0, 6)).toEqual([
      'format-version',
      'table-uuid',
      'location',
      'last-sequence-number',
      'last-updated-ms',
      'last-column-id',
    ]);
    expect(rewritten['schema']).toBeUndefined();
    expect(rewritten['partition-spec']).toBeUndefined();
  });

  it('reads the v1 forms: single schema and spec, missing sequence numbers, inferred defaults', () => {
    const v1 = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV1Valid.json')), 'v1');
    expect(v1.formatVersion).toBe(1);
    expect(v1.currentSchemaId).toBe(0);
    expect(v1.schemas.map((s) => s.fields.map((f) => f.name))).toEqual([['x', 'y', 'z']]);
    expect(v1.partitionSpecs).toEqual([{ specId: 0, fields: [{ sourceId: 1, fieldId: 1000, name: 'x', transform: 'identity' }] }]);
    expect(v1.lastPartitionId).toBe(1000);
    expect(v1.lastSequenceNumber).toBe(0n);
    expect(v1.sortOrders).toEqual([{ orderId: 0, fields: [] }]);
    expect(v1.currentSnapshotId).toBeUndefined();
    expect(v1.refs.size).toBe(0);

    const specs = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV1PartitionSpecsWithoutDefaultId.json')), 'specs');
    expect(specs.defaultSpecId).toBe(2);
    expect(specs.lastPartitionId).toBe(1001);

    const compat = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV1Compat.json')), 'compat');
    expect(compat.snapshots[0]?.sequenceNumber).toBe(0n);
    expect(compat.currentSnapshotId).toBe(917896971991367610n);
    expect(compat.snapshots[0]?.summary['total-records']).toBe('3');
  });

  it('keeps v3 encryption keys, key-id and next-row-id', () => {
    const m = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV3ValidEncryption.json')), 'enc');
    expect(m.formatVersion).toBe(3);
    expect(m.nextRowId).toBe(0n);
    expect(m.snapshots[0]?.keyId).toBe('1fb95f04-7f98-4b1f-a08f-e810cfb907ff');
    expect(m.encryptionKeys).toHaveLength(2);
    expect(m.encryptionKeys?.[0]).toMatchObject({ 'encrypted-by-id': 'master-1', properties: { KEY_TIMESTAMP: '1781172301703' } });
    const out = parseJson(serializeTableMetadata(m), 'out') as Record<string, unknown>;
    const original = parseJson(read(join(RUST_TM, 'TableMetadataV3ValidEncryption.json')), 'in') as Record<string, unknown>;
    expect(out['encryption-keys']).toEqual(original['encryption-keys']);
  });
});

function metadataFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.metadata.json'))
    .sort();
}

// Not table metadata at all: JSON lines, and a BigQuery stub with no format-version.
const INVALID_DUCKDB: Record<string, string> = {
  'bad_data/bad_iceberg_metadata.json': 'unexpected content after the JSON value',
  'big_query_error/metadata/v0.metadata.json': 'format-version',
};

describe('duckdb-iceberg persistent tables', () => {
  const files = metadataFiles(DUCKDB).filter((f) => !(f in INVALID_DUCKDB));

  it('has the expected fixtures, gzip ones included', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => f.endsWith('.gz.metadata.json')).length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)('%s parses and rewrites to a fixed point', (file) => {
    const bytes = readFileSync(join(DUCKDB, file));
    const text = decodeMetadataBytes(bytes, file);
    expectFixedPoint(text, file);
    const m = readTableMetadata(bytes, file);
    expect(m.schemas.some((s) => s.schemaId === m.currentSchemaId)).toBe(true);
  });

  it.each(Object.entries(INVALID_DUCKDB))('%s is rejected', (file, fragment) => {
    const error = rejection(() => readTableMetadata(readFileSync(join(DUCKDB, file)), file));
    expect(error.message).toContain(file);
    expect(error.message).toContain(fragment);
  });

  it('decodes gzip metadata to the same JSON as its uncompressed twin', () => {
    const gz = join(DUCKDB, 'iceberg/lineitem_iceberg_gz/metadata/v2.gz.metadata.json');
    const text = decodeMetadataBytes(readFileSync(gz), gz);
    expect(text.trimStart().startsWith('{')).toBe(true);
    expect(decodeMetadataBytes(gzipSync(Buffer.from(text)), 'again')).toBe(text);
  });

  it('reads the legacy v1 snapshot that lists manifests inline', () => {
    const file = 'iceberg_v1_deprecated/default/legacy_v1/metadata/v2.metadata.json';
    const m = parseTableMetadata(read(join(DUCKDB, file)), file);
    expect(m.snapshots[0]?.manifests).toHaveLength(1);
    expect(m.snapshots[0]?.manifestList).toBe('');
  });
});

describe('int64 ids and validation errors', () => {
  const base = JSON.parse(read(join(RUST_TM, 'TableMetadataV2ValidMinimal.json'))) as Record<string, unknown>;
  const withSnapshot = (id: string, extra = ''): string =>
    JSON.stringify({ ...base, 'current-snapshot-id': 0, snapshots: [] })
      .replace('"current-snapshot-id":0', `"current-snapshot-id":${id}`)
      .replace(
        '"snapshots":[]',
        `"snapshots":[{"snapshot-id":${id},"sequence-number":9223372036854775806,"timestamp-ms":1,"manifest-list":"s3://b/l.avro","summary":{"operation":"append"}${extra}}]`,
      );

  it.each(['9223372036854775807', '3051729675574597004', '9007199254740993'])('snapshot id %s survives a round trip', (id) => {
    const m = parseTableMetadata(withSnapshot(id), 'big');
    expect(m.currentSnapshotId).toBe(BigInt(id));
    expect(m.snapshots[0]?.sequenceNumber).toBe(9223372036854775806n);
    const text = serializeTableMetadata(m);
    expect(text).toContain(`"snapshot-id": ${id}`);
    expect(parseTableMetadata(text, 'again')).toEqual(m);
  });

  it('writes -1 for no current snapshot in v2 and null in v3', () => {
    const v2 = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV2ValidMinimal.json')), 'v2');
    expect((parseJson(serializeTableMetadata(v2), 'o') as Record<string, unknown>)['current-snapshot-id']).toBe(-1);
    const v3 = parseTableMetadata(read(join(RUST_TM, 'TableMetadataV3ValidMinimal.json')), 'v3');
    expect((parseJson(serializeTableMetadata(v3), 'o') as Record<string, unknown>)['current-snapshot-id']).toBeNull();
    expect(parseTableMetadata(JSON.stringify({ ...JSON.parse(read(join(RUST_TM, 'TableMetadataV3ValidMinimal.json'))), 'current-snapshot-id': null }), 'n').currentSnapshotId).toBeUndefined();
  });

  it('refuses format versions above 3', () => {
    const error = rejection(() => parseTableMetadata(JSON.stringify({ ...base, 'format-version': 4 }), 'v4.json'));
    expect(error.message).toMatch(/Unsupported format-version 4 in v4\.json/);
  });

  it('names the JSON path of a bad nested field', () => {
    const error = rejection(() => parseTableMetadata(withSnapshot('5', ',"schema-id":"x"'), 'bad.json'));
    expect(error.message).toContain('bad.json');
    expect(error.message).toContain('snapshots[0].schema-id');
    const op = rejection(() => parseTableMetadata(withSnapshot('5').replace('"append"', '"merge"'), 'op.json'));
    expect(op.message).toContain('snapshots[0].summary.operation');
  });

  it('rejects a current snapshot that does not exist and a main ref that disagrees', () => {
    const missing = rejection(() => parseTableMetadata(JSON.stringify({ ...base, 'current-snapshot-id': 7 }), 'm.json'));
    expect(missing.message).toContain('current-snapshot-id');
    const text = withSnapshot('5').replace('"current-snapshot-id":5', '"current-snapshot-id":-1');
    const withRef = text.replace('"current-snapshot-id":-1', '"current-snapshot-id":-1,"refs":{"main":{"snapshot-id":5,"type":"branch"}}');
    const ref = rejection(() => parseTableMetadata(withRef, 'r.json'));
    expect(ref.message).toContain('refs.main');
  });

  it('derives a missing v3 next-row-id from the snapshots (duckdb-iceberg files omit it)', () => {
    const v3 = JSON.parse(read(join(RUST_TM, 'TableMetadataV3ValidMinimal.json'))) as Record<string, unknown>;
    delete v3['next-row-id'];
    expect(parseTableMetadata(JSON.stringify(v3), 'v3.json').nextRowId).toBe(0n);
    const snap = (id: number, first: number, added: number): Record<string, unknown> => ({
      'snapshot-id': id, 'sequence-number': id, 'timestamp-ms': 1, 'manifest-list': 's3://b/l.avro',
      summary: { operation: 'append' }, 'first-row-id': first, 'added-rows': added,
    });
    const withSnaps = { ...v3, snapshots: [snap(1, 0, 10), snap(2, 10, 5)] };
    expect(parseTableMetadata(JSON.stringify(withSnaps), 'v3s.json').nextRowId).toBe(15n);
  });

  it('rejects a long outside the 64-bit range', () => {
    const text = read(join(RUST_TM, 'TableMetadataV2ValidMinimal.json')).replace('"last-sequence-number": 34', '"last-sequence-number": 18446744073709551616');
    expect(rejection(() => parseTableMetadata(text, 'huge.json')).message).toContain('last-sequence-number: expected a 64-bit integer');
  });
});
