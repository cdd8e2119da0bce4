/**
 * The partitioned writer against the TypeScript transforms: every row of every file written
 * under specs using every transform (nested sources, nulls, pre-1970 instants, binary, uuid,
 * decimal, double) has the tuple of its file, computed row by row in TypeScript; files sit at
 * Java's `name=value/…` paths; the key columns are not in the Parquet files and field ids are;
 * bounds are per file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { bindPartitionSpec, partitionTuple } from '../../../src/iceberg/partition-fields.js';
import { partitionPath } from '../../../src/iceberg/partition-values.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { primitive, type NestedField, type Schema } from '../../../src/iceberg/types.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';

const { fields } = assignFreshIds([
  { name: 'seq', required: false, type: primitive('long') },
  { name: 'id', required: false, type: primitive('long') },
  { name: 'ts', required: false, type: primitive('timestamptz') },
  { name: 'name', required: false, type: primitive('string') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'amount', required: false, type: { kind: 'decimal', precision: 10, scale: 2 } },
  { name: 'd', required: false, type: primitive('date') },
  { name: 'bin', required: false, type: primitive('binary') },
  { name: 'flag', required: false, type: primitive('boolean') },
  { name: 'u', required: false, type: primitive('uuid') },
  { name: 'x', required: false, type: primitive('int') },
  { name: 'price', required: false, type: primitive('double') },
  { name: 'tsn', required: false, type: primitive('timestamp_ns') },
  {
    name: 'ev',
    required: false,
    type: { kind: 'struct', fields: [{ name: 'at', required: false, type: primitive('timestamp') }] },
  },
]);
const SCHEMA: Schema = { schemaId: 0, identifierFieldIds: [], fields };
const idOf = (path: string): number => {
  const [top, nested] = path.split('.');
  const field = fields.find((f) => f.name === top) as NestedField;
  if (nested === undefined) return field.id;
  if (field.type.kind !== 'struct') throw new Error(`${top} is not a struct`);
  return field.type.fields.find((f) => f.name === nested)!.id;
};

let specIds = 0;
function spec(...parts: [name: string, transform: string, source: string][]): PartitionSpec {
  specIds += 1;
  return { specId: specIds, fields: parts.map(([name, transform, source], i) => ({ name, transform, sourceId: idOf(source), fieldId: 1000 + i })) };
}

const SPECS: PartitionSpec[] = [
  spec(['ts_day', 'day', 'ts'], ['id_bucket', 'bucket[16]', 'id']),
  spec(['name_trunc', 'truncate[4]', 'name'], ['region', 'identity', 'region'], ['name_bucket', 'bucket[8]', 'name']),
  spec(['ts_hour', 'hour', 'ts'], ['x_null', 'void', 'x']),
  spec(['d_month', 'month', 'd'], ['ts_year', 'year', 'ts'], ['d', 'identity', 'd']),
  spec(['amount_trunc', 'truncate[10000]', 'amount'], ['amount_bucket', 'bucket[4]', 'amount'], ['flag', 'identity', 'flag'], ['bin_trunc', 'truncate[2]', 'bin']),
  spec(['u_bucket', 'bucket[5]', 'u'], ['price', 'identity', 'price'], ['tsn_day', 'day', 'tsn']),
  spec(['x_trunc', 'truncate[100]', 'x'], ['bin', 'identity', 'bin']),
  spec(['at_day', 'day', 'ev.at'], ['d_year', 'year', 'd'], ['at', 'identity', 'ev.at']),
];

const ROWS = 3000;
/** Each column NULL on its own residue, so every partition field sees nulls next to values. */
const SOURCE = `
  SELECT range::BIGINT AS seq,
         CASE WHEN range % 11 = 0 THEN NULL ELSE (range * 7919) % 100003 - 50000 END::BIGINT AS id,
         CASE WHEN range % 13 = 0 THEN NULL ELSE TIMESTAMPTZ '1969-12-30 00:00:00+00' + to_microseconds((range * 104729) % 300000000000 - 1000) END AS ts,
         CASE WHEN range % 17 = 0 THEN NULL ELSE ['ice', 'iceberg', 'ä漢字🧊x', '', 'spark', 'a b/c=d'][range % 6 + 1] || (range % 5)::VARCHAR END AS name,
         CASE WHEN range % 19 = 0 THEN NULL ELSE ['eu', 'us/west', 'ap south'][range % 3 + 1] END AS region,
         CASE WHEN range % 23 = 0 THEN NULL ELSE ((range * 31) % 200000 - 100000) / 100.0 END::DECIMAL(10,2) AS amount,
         CASE WHEN range % 29 = 0 THEN NULL ELSE DATE '1969-06-01' + ((range * 37) % 400)::INTEGER END AS d,
         CASE WHEN range % 31 = 0 THEN NULL ELSE unhex(printf('%02x%02x%02x', range % 3, range % 4, range % 2)) END AS bin,
         CASE WHEN range % 37 = 0 THEN NULL ELSE range % 2 = 0 END AS flag,
         CASE WHEN range % 41 = 0 THEN NULL ELSE seeded_uuid(range) END AS u,
         CASE WHEN range % 43 = 0 THEN NULL ELSE ((range * 13) % 1000 - 500)::INTEGER END AS x,
         CASE WHEN range % 47 = 0 THEN NULL ELSE ((range % 9) - 4) / 4.0 END::DOUBLE AS price,
         CASE WHEN range % 53 = 0 THEN NULL ELSE make_timestamp_ns(((range * 7777777) % 400000000000 - 200000000000) * 1000 + range % 1000) END AS tsn,
         {'at': CASE WHEN range % 59 = 0 THEN NULL ELSE TIMESTAMP '1969-12-31 23:00:00' + to_hours(range % 50) END} AS ev
  FROM range(${ROWS})`;

/** A uuid per number (DuckDB has no seeded uuid function): 32 hex digits from two md5 halves. */
const UUID_MACRO = `CREATE MACRO seeded_uuid(n) AS CAST(
  regexp_replace(md5(n::VARCHAR), '^(.{8})(.{4})(.{4})(.{4})(.{12})$', '\\1-\\2-\\3-\\4-\\5') AS UUID)`;

/** The source values of one row in the single-value JS forms (bounds.ts), by field id. */
const ROW_VALUES_SQL = `
  SELECT seq::VARCHAR AS seq, id::VARCHAR AS id, epoch_us(ts)::VARCHAR AS ts, name, region,
         CAST(amount * 100 AS BIGINT)::VARCHAR AS amount, (d - DATE '1970-01-01')::VARCHAR AS d, hex(bin) AS bin,
         flag, u::VARCHAR AS u, x::VARCHAR AS x, price, epoch_ns(tsn)::VARCHAR AS tsn, epoch_us(ev.at)::VARCHAR AS ev_at`;

function rowValues(row: Record<string, unknown>): Map<number, unknown> {
  const big = (v: unknown): bigint | null => (v === null ? null : BigInt(String(v)));
  const num = (v: unknown): number | null => (v === null ? null : Number(v));
  return new Map<number, unknown>([
    [idOf('seq'), big(row['seq'])],
    [idOf('id'), big(row['id'])],
    [idOf('ts'), big(row['ts'])],
    [idOf('name'), row['name']],
    [idOf('region'), row['region']],
    [idOf('amount'), big(row['amount'])],
    [idOf('d'), num(row['d'])],
    [idOf('bin'), row['bin'] === null ? null : new Uint8Array(Buffer.from(String(row['bin']), 'hex'))],
    [idOf('flag'), row['flag']],
    [idOf('u'), row['u']],
    [idOf('x'), num(row['x'])],
    [idOf('price'), num(row['price'])],
    [idOf('tsn'), big(row['tsn'])],
    [idOf('ev.at'), big(row['ev_at'])],
  ]);
}

const io = new LocalFileIO();
let work: string;
let session: DuckDbSession;
const written = new Map<number, DataFile[]>();

const pathOf = (file: DataFile): string => new URL(file.filePath).pathname;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-partitioned-'));
  session = await DuckDbSession.open();
  await session.run(UUID_MACRO);
  await session.run(`CREATE TABLE src AS ${SOURCE}`);
  for (const s of SPECS) {
    written.set(
      s.specId,
      await writePartitionedDataFiles({
        session,
        query: 'SELECT * FROM src',
        schema: SCHEMA,
        spec: s,
        dataLocation: toFileUri(join(work, `spec-${s.specId}`, 'data')),
        io,
        properties: {},
        writerName: 'test',
      }),
    );
  }
}, 120_000);

afterAll(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

describe.each(SPECS.map((s) => [s.fields.map((f) => f.transform).join(', '), s] as const))('spec %s', (_name, s) => {
  it('gives every row the tuple of its file, as the TypeScript transforms compute it', async () => {
    const files = written.get(s.specId)!;
    const byPath = new Map(files.map((file) => [pathOf(file), file]));
    const read = await session.queryJson(`${ROW_VALUES_SQL}, filename FROM read_parquet(${pathList(files)}, hive_partitioning = false, filename = true)`);
    expect(read.length).toBe(ROWS);
    const counts = new Map<string, bigint>();
    const fields = bindPartitionSpec(s, SCHEMA);
    for (const row of read) {
      const file = byPath.get(String(row['filename']))!;
      const values = rowValues(row);
      expect(partitionTuple(fields, (id) => values.get(id) ?? null)).toEqual(file.partition);
      counts.set(file.filePath, (counts.get(file.filePath) ?? 0n) + 1n);
    }
    for (const file of files) {
      expect(file.specId).toBe(s.specId);
      expect(counts.get(file.filePath)).toBe(file.recordCount);
    }
    // one file per partition: the write stayed under the open-file cap and the target size
    expect(new Set(files.map((file) => tupleKey(file))).size).toBe(files.length);
  });

  it('writes every row once, at <data>/<partition path>/<file>, without the key columns and with field ids', async () => {
    const files = written.get(s.specId)!;
    const [check] = await session.queryJson(
      `SELECT count(*)::VARCHAR AS n, count(DISTINCT seq)::VARCHAR AS d FROM read_parquet(${pathList(files)}, hive_partitioning = false)`,
    );
    expect(check).toEqual({ n: String(ROWS), d: String(ROWS) });
    const fields = bindPartitionSpec(s, SCHEMA);
    const pathFields = s.fields.map((f, i) => ({ name: f.name, fieldId: f.fieldId, transform: parseTransform(f.transform), resultType: fields[i]!.resultType }));
    const data = toFileUri(join(work, `spec-${s.specId}`, 'data'));
    for (const file of files) {
      expect(file.filePath).toMatch(new RegExp(`^${escape(`${data}/${partitionPath(pathFields, file.partition)}/`)}[^/]+\\.parquet$`));
    }
    const columns = await session.queryJson(
      `SELECT DISTINCT name, field_id::INTEGER AS id FROM parquet_schema(${pathList(files)}) WHERE name <> 'duckdb_schema' ORDER BY id`,
    );
    const expected = SCHEMA.fields.flatMap((f) => [{ name: f.name, id: f.id }, ...(f.type.kind === 'struct' ? f.type.fields.map((c) => ({ name: c.name, id: c.id })) : [])]);
    expect(columns).toEqual(expected.sort((a, b) => a.id - b.id));
  });

  it('keeps bounds and null counts per file', async () => {
    const files = written.get(s.specId)!;
    const stats = await session.queryJson(
      `SELECT filename, min(seq)::VARCHAR AS lo, max(seq)::VARCHAR AS hi, count(*) FILTER (WHERE id IS NULL)::VARCHAR AS nulls
       FROM read_parquet(${pathList(files)}, hive_partitioning = false, filename = true) GROUP BY filename`,
    );
    const byPath = new Map(stats.map((row) => [String(row['filename']), row]));
    for (const file of files) {
      const row = byPath.get(pathOf(file))!;
      expect(decodeSingleValue(primitive('long'), file.lowerBounds!.get(idOf('seq'))!)).toBe(BigInt(String(row['lo'])));
      expect(decodeSingleValue(primitive('long'), file.upperBounds!.get(idOf('seq'))!)).toBe(BigInt(String(row['hi'])));
      expect(file.nullValueCounts!.get(idOf('id'))).toBe(BigInt(String(row['nulls'])));
    }
  });
});

describe('partition layout', () => {
  it('places the spec vectors where Java would: day 2017-11-16, bucket[16] of 34 = 3, nulls as null', async () => {
    const s = SPECS[0]!;
    const files = await writePartitionedDataFiles({
      session,
      query: `SELECT src.* REPLACE (v.id AS id, v.ts AS ts) FROM src JOIN (VALUES (34::BIGINT, TIMESTAMPTZ '2017-11-16 22:31:08+00', 0), (NULL, NULL, 1)) v(id, ts, k) ON src.seq = v.k`,
      schema: SCHEMA,
      spec: s,
      dataLocation: toFileUri(join(work, 'vectors', 'data')),
      io,
      properties: {},
      writerName: 'test',
    });
    expect(files.map((f) => f.filePath.slice(toFileUri(join(work, 'vectors', 'data')).length).replace(/[^/]+$/, '')).sort()).toEqual([
      '/ts_day=2017-11-16/id_bucket=3/',
      '/ts_day=null/id_bucket=null/',
    ]);
    const byDay = [...files].sort((a, b) => (a.partition.get(1000) === null ? 1 : 0) - (b.partition.get(1000) === null ? 1 : 0));
    expect(byDay.map((f) => [...f.partition.values()])).toEqual([
      [17486, 3],
      [null, null],
    ]);
  });

  it('url-encodes values in paths (Java URLEncoder): a space is +, a slash %2F', async () => {
    const files = written.get(SPECS[1]!.specId)!;
    const regions = new Set(files.map((f) => /\/region=([^/]+)\//.exec(f.filePath)?.[1]));
    expect([...regions].sort()).toEqual(['ap+south', 'eu', 'null', 'us%2Fwest']);
  });
});

const pathList = (files: readonly DataFile[]): string => `[${files.map((f) => quoteLiteral(pathOf(f))).join(', ')}]`;

function tupleKey(file: DataFile): string {
  return JSON.stringify([...file.partition], (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
