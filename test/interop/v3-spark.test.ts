/**
 * Iceberg format v3 between Thund and Spark 4.1 with Iceberg's 1.12 runtime, both on one embedded
 * SQLite catalog (Thund's SqlCatalog in this process, Iceberg's JDBC catalog in one Spark session
 * that serves the whole file, test/interop/spark-v3.ts):
 *  - Spark reads Thund's v3 tables row-exact against a DuckDB model after merge-on-read deletes
 *    and upserts (deletion vectors, merged ones), and an SCD2 apply-changes pipeline run with
 *    `thund run` into a v3 table; `_row_id` is non-null and unique, and rows Thund did not touch
 *    keep their `_row_id` and `_last_updated_sequence_number`;
 *  - Thund reads Spark's v3 table after DELETE, UPDATE and MERGE INTO (Spark's deletion vectors),
 *    upserts into it (its vectors merged with Spark's), Spark reads the result, `thund inspect` works;
 *  - a deletion vector Spark wrote decodes and re-encodes to the same bytes, and Thund's vector for
 *    the same positions of a same-shaped file is byte-identical to Spark's (also after a second,
 *    merged delete);
 *  - equality deletes written by Iceberg's Java library are applied by Thund's scan by sequence
 *    number, and Thund's upserts into that table read back right in both engines;
 *  - what the project's other readers do with Thund's deletion vectors: pyiceberg 0.12 and the
 *    interop lane's Spark reader (Spark 4.0, Iceberg 1.10, test/interop/spark.ts) read them exactly.
 * Spark is required: without it the suite fails, as every interop test does. The SCD2 pipeline
 * and `thund inspect` run the built CLI (dist/: npm run build, as test/run-all.sh does first).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { decodeDeletionVector, encodeDeletionVector } from '../../src/iceberg/puffin/deletion-vector.js';
import { parseJson } from '../../src/iceberg/json.js';
import { REPO, thundAsync } from '../e2e/cli.js';
import { scd2HistoryOf } from '../support/scd2-reference.js';
import { ICEBERG_SPARK_VERSION, SPARK_VERSION } from '../stack/spark.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { readWithSpark } from './spark.js';
import { SparkV3Session, SPARK_V3_VERSIONS, type SparkTableFiles } from './spark-v3.js';
import { containerKinds, dvBlobBytes, ModelledTable, puffinBlobs, rowKey, sortedKeys, type ThundWarehouse } from './v3-support.js';

const LONG_LABEL = [
  { name: 'id', type: 'long', duck: 'BIGINT' },
  { name: 'label', type: 'string', duck: 'VARCHAR' },
] as const;
const ID_NAME_QTY = [
  { name: 'id', type: 'long', duck: 'BIGINT' },
  { name: 'name', type: 'string', duck: 'VARCHAR' },
  { name: 'qty', type: 'long', duck: 'BIGINT' },
] as const;
const MOR = "'format-version'='3', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'";
const CDC_CHANGES = path.join(REPO, 'examples/cdc_scd2/data/changes');

let scratch: string;
let warehouse: string;
let catalogDb: string;
let wh: ThundWarehouse;
let spark: SparkV3Session;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'thund-v3-spark-'));
  warehouse = path.join(scratch, 'warehouse');
  catalogDb = path.join(warehouse, 'catalog.db');
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: catalogDb, warehouse: toFileUri(warehouse), io });
  await catalog.createNamespace(['lake']);
  wh = { catalog, io, session: await DuckDbSession.open({ threads: 1 }) };
  spark = await SparkV3Session.start({ catalogDb, warehouse: pathToFileURL(warehouse).href, log: path.join(scratch, 'spark.log') });
}, 1_200_000);

afterAll(async () => {
  await spark?.stop();
  wh?.session.close();
  await wh?.catalog.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

interface LineageRow {
  readonly rowId: string | null;
  readonly seq: string | null;
  readonly file: string;
}

/** Spark's rows of a table with `_row_id`, `_last_updated_sequence_number` and `_file`, by the values of `keyColumns` (one column: its value). */
async function sparkLineage(table: string, columns: readonly string[], keyColumns: readonly string[]): Promise<Map<string, LineageRow>> {
  const { rows } = await spark.query(`SELECT _row_id, _last_updated_sequence_number, _file, ${columns.join(', ')} FROM ${spark.table(table)}`);
  const out = new Map<string, LineageRow>();
  for (const row of rows) {
    const id = keyColumns.length === 1 ? String(row[keyColumns[0]!]) : rowKey(row, keyColumns);
    expect(out.has(id), `Spark reads ${keyColumns.join(', ')} ${id} of ${table} twice`).toBe(false);
    out.set(id, { rowId: row['_row_id'] as string | null, seq: row['_last_updated_sequence_number'] as string | null, file: String(row['_file']) });
  }
  return out;
}

async function sparkRows(table: string, columns: readonly string[], version?: string): Promise<string[]> {
  const at = version === undefined ? '' : ` VERSION AS OF ${version}`;
  const { rows } = await spark.query(`SELECT ${columns.join(', ')} FROM ${spark.table(table)}${at}`);
  return sortedKeys(rows, columns);
}

/** Every live row has a row id, and no two the same; the table's next-row-id is past all of them. */
function expectRowIdsValid(table: string, lineage: Map<string, LineageRow>, files: SparkTableFiles): void {
  const ids = [...lineage.values()].map((row) => row.rowId);
  expect(ids.filter((id) => id === null), `${table}: rows without _row_id`).toEqual([]);
  expect(new Set(ids).size, `${table}: _row_id values repeat`).toBe(ids.length);
  expect([...lineage.values()].filter((row) => row.seq === null), `${table}: rows without _last_updated_sequence_number`).toEqual([]);
  const max = ids.reduce((m, id) => (BigInt(id!) > m ? BigInt(id!) : m), -1n);
  expect(BigInt(files.next_row_id ?? '-1'), `${table}: next-row-id is not past the largest _row_id ${max}`).toBeGreaterThan(max);
}

/**
 * The delete files as Iceberg Java plans them: only deletion vectors (format PUFFIN, position
 * deletes) naming their data file, at most one per data file, and each data file's records less
 * its vector's cardinality is what Spark reads from that file.
 */
function expectDeletionVectorsConsistent(table: string, files: SparkTableFiles, lineage: Map<string, LineageRow>, options: { equalityDeletes?: boolean } = {}): void {
  const liveByFile = new Map<string, number>();
  for (const row of lineage.values()) liveByFile.set(row.file, (liveByFile.get(row.file) ?? 0) + 1);
  for (const file of files.data_files) {
    const positionDeletes = file.deletes.filter((d) => d.content === 'POSITION_DELETES');
    expect(positionDeletes.map((d) => d.format), `${table}: ${file.path} has position deletes that are not one deletion vector`).toEqual(positionDeletes.length === 0 ? [] : ['PUFFIN']);
    if (!options.equalityDeletes) expect(file.deletes.filter((d) => d.content !== 'POSITION_DELETES'), `${table}: ${file.path}`).toEqual([]);
    const dv = positionDeletes[0];
    if (dv !== undefined) expect(dv.referenced_data_file).toBe(file.path);
    if (!options.equalityDeletes) {
      const live = Number(file.record_count) - Number(dv?.record_count ?? 0);
      expect(liveByFile.get(file.path) ?? 0, `${table}: ${file.path} has ${file.record_count} records and a vector of ${dv?.record_count ?? 0}`).toBe(live);
    }
  }
}

describe(`Spark (${SPARK_V3_VERSIONS}) reads Thund's v3 tables`, () => {
  it('after merge-on-read deletes and upserts: rows equal the model, deletion vectors merged, row ids kept for untouched rows', async () => {
    const t = new ModelledTable(wh, 'lake.thund_dv', LONG_LABEL);
    const columns = ['id', 'label'];
    await t.createV3();
    const rows = (from: number, count: number, version: number): string => `SELECT range::BIGINT AS id, 'v${version}-' || range AS label FROM range(${from}, ${from + count})`;
    for (const from of [0, 100, 200]) await t.append(rows(from, 100, 0));
    const appended = await sparkLineage('lake.thund_dv', columns, ['id']);
    expect(appended.size).toBe(300);
    expectRowIdsValid('lake.thund_dv', appended, await spark.files('lake.thund_dv'));

    const deleted = await t.deleteWhere('id % 10 = 3');
    expect(deleted.addedDeleteFiles.map((f) => f.fileFormat)).toEqual(['PUFFIN', 'PUFFIN', 'PUFFIN']);
    const afterDelete = await t.keepModel('after_delete');
    // Keys in the first file and new keys; then keys of the first upsert's file and of the first file again
    // (its vector is merged a second time); then a delete that merges into the second file's vector.
    const upserts: { keys: number[]; seq: bigint }[] = [];
    for (const [from, count, version] of [[10, 15, 1], [300, 10, 1], [20, 20, 2], [305, 2, 3]] as const) {
      const result = await t.upsert(rows(from, count, version));
      upserts.push({ keys: Array.from({ length: count }, (_, i) => from + i), seq: result.snapshot!.sequenceNumber });
    }
    const lastDelete = await t.deleteWhere('id BETWEEN 150 AND 160 OR id = 301');
    expect(lastDelete.snapshot?.summary['removed-dvs']).toBeDefined();

    expect(await sparkRows('lake.thund_dv', columns)).toEqual(await t.expected());
    expect(await sparkRows('lake.thund_dv', columns, String(deleted.snapshot!.snapshotId))).toEqual(await t.canonical(`SELECT * FROM ${afterDelete}`));
    expect(await t.thundRows()).toEqual(await t.expected());

    const files = await spark.files('lake.thund_dv');
    expect(files.format_version).toBe(3);
    const lineage = await sparkLineage('lake.thund_dv', columns, ['id']);
    expectRowIdsValid('lake.thund_dv', lineage, files);
    expectDeletionVectorsConsistent('lake.thund_dv', files, lineage);
    // The first file (ids 0–99) lost ids ending in 3 to the delete and 10–39 to two upserts: one vector holds all 37.
    const first = files.data_files.find((f) => f.path === appended.get('0')!.file)!;
    expect(first.deletes.map((d) => d.record_count)).toEqual(['37']);

    const lastWriter = new Map<string, bigint>();
    for (const { keys, seq } of upserts) for (const key of keys) lastWriter.set(String(key), seq);
    const before = new Set([...appended.values()].map((row) => row.rowId));
    for (const [id, row] of lineage) {
      const upsertSeq = lastWriter.get(id);
      if (upsertSeq === undefined) {
        // Never touched by Thund: the row id and sequence number it had before the deletes.
        expect({ id, rowId: row.rowId, seq: row.seq }).toEqual({ id, rowId: appended.get(id)!.rowId, seq: appended.get(id)!.seq });
      } else {
        expect(before.has(row.rowId), `upserted id ${id} reuses row id ${row.rowId}`).toBe(false);
        expect({ id, seq: row.seq }).toEqual({ id, seq: String(upsertSeq) });
      }
    }
  }, 600_000);

  it('an SCD2 apply-changes pipeline into a v3 table (thund run, two runs): Spark reads the history the events give', async () => {
    const folder = path.join(scratch, 'scd2');
    const changes = path.join(folder, 'changes');
    mkdirSync(changes, { recursive: true });
    const spec = path.join(folder, 'pipeline.yaml');
    writeFileSync(
      spec,
      `pipeline: scd2_v3
sources:
  customer_changes: { format: parquet, path: "${changes}/*.parquet" }
tables:
  lake.customers_history:
    kind: streaming_table
    partitioned_by: ["bucket(4, id)"]
    properties: { format-version: "3", write.update.mode: merge-on-read, thund.stream.max-files-per-batch: "1" }
    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: 2 }
`,
    );
    const columns = ['id', 'name', 'email', 'tier', '__START_AT', '__END_AT'];
    const expected = async (parts: readonly number[]): Promise<string[]> => {
      const events = `(SELECT * FROM read_parquet([${parts.map((p) => quoteLiteral(path.join(CDC_CHANGES, `part-${p}.parquet`))).join(', ')}]))`;
      const history = await wh.session.queryJson(`SELECT ${columns.map((c) => `CAST(${c} AS VARCHAR) AS ${c}`).join(', ')} FROM (${scd2HistoryOf(events)})`);
      return sortedKeys(history, columns);
    };
    const run = async (parts: readonly number[]): Promise<void> => {
      for (const part of parts) copyFileSync(path.join(CDC_CHANGES, `part-${part}.parquet`), path.join(changes, `part-${part}.parquet`));
      const result = await thundAsync(['run', spec, '--warehouse', warehouse]);
      expect(result.status, `thund run: ${result.stderr}`).toBe(0);
    };

    await run([0, 1]);
    expect((await spark.files('lake.customers_history')).format_version).toBe(3);
    expect(await sparkRows('lake.customers_history', columns)).toEqual(await expected([0, 1]));
    const firstRun = await sparkLineage('lake.customers_history', columns, columns);

    await run([2, 3]);
    const files = await spark.files('lake.customers_history');
    expect(files.format_version).toBe(3);
    expect(await sparkRows('lake.customers_history', columns)).toEqual(await expected([0, 1, 2, 3]));
    const lineage = await sparkLineage('lake.customers_history', columns, columns);
    expectRowIdsValid('lake.customers_history', lineage, files);
    expectDeletionVectorsConsistent('lake.customers_history', files, lineage);
    // Versions closed by the later events were deleted through deletion vectors.
    expect(files.data_files.some((f) => f.deletes.length > 0)).toBe(true);
    expect(files.snapshots.map((s) => s.summary['added-dvs'] ?? '0').some((n) => Number(n) > 0)).toBe(true);
    // A version the second run left as it was keeps its row id.
    const kept = [...lineage.entries()].filter(([key]) => firstRun.has(key));
    expect(kept.length).toBeGreaterThan(0);
    for (const [key, row] of kept) expect({ key, rowId: row.rowId, seq: row.seq }).toEqual({ key, rowId: firstRun.get(key)!.rowId, seq: firstRun.get(key)!.seq });
  }, 600_000);
});

describe(`Thund reads Spark's v3 tables (${SPARK_V3_VERSIONS})`, () => {
  it('after Spark DELETE, UPDATE and MERGE INTO; Thund upserts into it, merging its vectors with Spark’s, and Spark reads the result', async () => {
    const t = new ModelledTable(wh, 'lake.spark_dv', ID_NAME_QTY);
    const columns = ['id', 'name', 'qty'];
    const name = spark.table('lake.spark_dv');
    await t.createModel();
    const model = (sql: string): Promise<void> => wh.session.run(sql);
    await spark.sql(`CREATE TABLE ${name} (id BIGINT, name STRING, qty BIGINT) USING iceberg TBLPROPERTIES (${MOR})`);
    // One task writes all of a statement's deletion vectors: several blobs in one Puffin file.
    await spark.sql('SET spark.sql.shuffle.partitions=1');
    for (const [from, to] of [[0, 400], [400, 600]] as const) {
      await spark.sql(`INSERT INTO ${name} SELECT id, concat('n-', id), id * 10 FROM range(${from}, ${to})`);
      await model(`INSERT INTO ${t.model} SELECT range, 'n-' || range, range * 10 FROM range(${from}, ${to})`);
    }
    await spark.sql(`DELETE FROM ${name} WHERE id % 9 = 4`);
    await model(`DELETE FROM ${t.model} WHERE id % 9 = 4`);
    await spark.sql(`UPDATE ${name} SET qty = qty + 1, name = concat(name, '-u') WHERE id % 10 = 7`);
    await model(`UPDATE ${t.model} SET qty = qty + 1, name = name || '-u' WHERE id % 10 = 7`);
    await spark.sql(
      `MERGE INTO ${name} t USING (SELECT id, concat('m-', id) AS name, id AS qty FROM range(590, 620)) s ON t.id = s.id
       WHEN MATCHED AND s.id % 2 = 0 THEN DELETE
       WHEN MATCHED THEN UPDATE SET name = s.name, qty = s.qty
       WHEN NOT MATCHED THEN INSERT (id, name, qty) VALUES (s.id, s.name, s.qty)`,
    );
    await model(`CREATE TEMP TABLE spark_dv_keys AS SELECT id FROM ${t.model}`);
    await model(`DELETE FROM ${t.model} WHERE id BETWEEN 590 AND 619 AND id % 2 = 0`);
    await model(`UPDATE ${t.model} SET name = 'm-' || id, qty = id WHERE id BETWEEN 590 AND 619`);
    await model(`INSERT INTO ${t.model} SELECT range, 'm-' || range, range FROM range(590, 620) WHERE range NOT IN (SELECT id FROM spark_dv_keys)`);
    await spark.sql('SET spark.sql.shuffle.partitions=2');

    const sparkFiles = await spark.files('lake.spark_dv');
    expect(sparkFiles.format_version).toBe(3);
    const dvs = sparkFiles.data_files.flatMap((f) => f.deletes);
    expect(dvs.length).toBeGreaterThan(1);
    expect(dvs.every((d) => d.format === 'PUFFIN')).toBe(true);
    const blobsPerPuffin = new Map<string, number>();
    for (const d of dvs) blobsPerPuffin.set(d.path, (blobsPerPuffin.get(d.path) ?? 0) + 1);
    expect(Math.max(...blobsPerPuffin.values()), 'Spark wrote no Puffin file with two live vectors').toBeGreaterThan(1);

    expect(await sparkRows('lake.spark_dv', columns)).toEqual(await t.expected());
    expect(await t.thundRows()).toEqual(await t.expected());

    // Thund upserts into files whose vectors share a Puffin file with other files' vectors.
    const before = await sparkLineage('lake.spark_dv', columns, ['id']);
    const upsertSql = (from: number, count: number, tag: string): string =>
      `SELECT range::BIGINT AS id, '${tag}-' || range AS name, range::BIGINT AS qty FROM range(${from}, ${from + count})`;
    const touched = new Set<string>();
    for (const [from, count, tag] of [[100, 12, 'thund1'], [500, 10, 'thund2'], [1000, 3, 'thund3'], [105, 3, 'thund4']] as const) {
      await t.upsert(upsertSql(from, count, tag));
      for (let i = 0; i < count; i++) touched.add(String(from + i));
    }
    await t.deleteWhere('id BETWEEN 300 AND 310');

    expect(await sparkRows('lake.spark_dv', columns)).toEqual(await t.expected());
    expect(await t.thundRows()).toEqual(await t.expected());
    const files = await spark.files('lake.spark_dv');
    const lineage = await sparkLineage('lake.spark_dv', columns, ['id']);
    expectRowIdsValid('lake.spark_dv', lineage, files);
    expectDeletionVectorsConsistent('lake.spark_dv', files, lineage);
    for (const [id, row] of lineage) {
      if (touched.has(id)) continue;
      expect({ id, rowId: row.rowId, seq: row.seq }).toEqual({ id, rowId: before.get(id)?.rowId, seq: before.get(id)?.seq });
    }
    // Some Puffin file of Spark's lost one vector to Thund (merged into Thund's new one) and kept another.
    const dvOf = (f: SparkTableFiles): Map<string, string> => new Map(f.data_files.flatMap((d) => d.deletes.map((x) => [d.path, x.path] as const)));
    const [dvBefore, dvAfter] = [dvOf(sparkFiles), dvOf(files)];
    const splitPuffins = [...blobsPerPuffin.keys()].filter((puffin) => {
      const users = [...dvBefore].filter(([, p]) => p === puffin).map(([data]) => data);
      return users.some((data) => dvAfter.get(data) === puffin) && users.some((data) => dvAfter.has(data) && dvAfter.get(data) !== puffin);
    });
    expect(splitPuffins.length, 'no Puffin file of Spark had one vector replaced by Thund and another kept').toBeGreaterThan(0);

    const inspected = await thundAsync(['inspect', 'lake.spark_dv', '--warehouse', warehouse, '--json']);
    expect(inspected.status, inspected.stderr).toBe(0);
    const report = parseJson(inspected.stdout, 'thund inspect --json') as { formatVersion: number; rowCount: unknown; currentSnapshotId: unknown; dataFiles: { path: string }[] };
    expect(report.formatVersion).toBe(3);
    expect(String(report.rowCount)).toBe(String((await t.expected()).length));
    expect(String(report.currentSnapshotId)).toBe(files.current_snapshot_id);
    expect(report.dataFiles.map((f) => f.path).sort()).toEqual(files.data_files.map((f) => f.path).sort());
  }, 600_000);
});

describe('deletion vector bytes', () => {
  it("Spark's vector re-encodes to its own bytes, and Thund's vector for the same positions equals Spark's, also merged", async () => {
    const ROWS = 150_000;
    // Key 0: every 7th position below 60000 (a bitmap container); key 1: a run and single
    // positions (a run container); key 2: two positions (an array container).
    const first = '(id < 60000 AND id % 7 = 0) OR id BETWEEN 70000 AND 80000 OR id IN (65535, 65536, 100003, 120000, 131071, 131072, 149999)';
    const second = 'id BETWEEN 1 AND 5 OR id IN (90000, 140000)';
    const sparkName = spark.table('lake.dv_bytes_spark');
    await spark.sql(`CREATE TABLE ${sparkName} (id BIGINT, label STRING) USING iceberg TBLPROPERTIES (${MOR})`);
    await spark.sql(`INSERT INTO ${sparkName} SELECT /*+ COALESCE(1) */ id, concat('row-', id) FROM range(0, ${ROWS})`);
    const positions = await spark.query(`SELECT count(*) AS n, count_if(_pos <> id) AS moved FROM ${sparkName}`);
    expect(positions.rows).toEqual([{ n: String(ROWS), moved: '0' }]);

    const thund = new ModelledTable(wh, 'lake.dv_bytes_thund', LONG_LABEL);
    await thund.createV3();
    await thund.append(`SELECT range::BIGINT AS id, 'row-' || range AS label FROM range(0, ${ROWS})`);
    const thundPositions = await wh.session.queryJson(`SELECT count(*) AS n FROM ${thund.model}`);
    expect(String(thundPositions[0]?.['n'])).toBe(String(ROWS));

    for (const [predicate, kinds] of [[first, [['bitmap', 'run', 'array']]], [second, [['bitmap', 'run', 'array']]]] as const) {
      await spark.sql(`DELETE FROM ${sparkName} WHERE ${predicate}`);
      await thund.deleteWhere(predicate);
      const sparkFiles = await spark.files('lake.dv_bytes_spark');
      expect(sparkFiles.data_files).toHaveLength(1);
      const sparkDv = sparkFiles.data_files[0]!.deletes;
      expect(sparkDv.map((d) => d.format)).toEqual(['PUFFIN']);
      const sparkBlob = dvBlobBytes(sparkDv[0]!);
      // The vector exercises every container kind: a byte-equal blob means Thund chose each as Java does.
      expect(containerKinds(sparkBlob)).toEqual(kinds);
      const decoded = decodeDeletionVector(sparkBlob, sparkDv[0]!.path);
      const expectedPositions = (await wh.session.queryBigInts(`SELECT range FROM range(0, ${ROWS}) WHERE range NOT IN (SELECT id FROM ${thund.model}) ORDER BY 1`));
      expect(decoded).toEqual(expectedPositions);
      expect(Buffer.from(encodeDeletionVector(decoded)).equals(Buffer.from(sparkBlob)), 'Thund re-encodes Spark’s vector to other bytes').toBe(true);

      const thundFiles = await spark.files('lake.dv_bytes_thund');
      expect(thundFiles.data_files).toHaveLength(1);
      const thundDv = thundFiles.data_files[0]!.deletes;
      expect(thundDv.map((d) => d.format)).toEqual(['PUFFIN']);
      const thundBlob = dvBlobBytes(thundDv[0]!);
      expect({ length: thundBlob.length, hex: Buffer.from(thundBlob).toString('hex') }).toEqual({ length: sparkBlob.length, hex: Buffer.from(sparkBlob).toString('hex') });
      // The Puffin footers describe the blobs alike.
      const blobOf = (d: (typeof sparkDv)[0]) => puffinBlobs(d.path).find((b) => b.offset === d.content_offset)!;
      const [s, th] = [blobOf(sparkDv[0]!), blobOf(thundDv[0]!)];
      expect({ type: th.type, cardinality: th.properties['cardinality'] }).toEqual({ type: s.type, cardinality: s.properties['cardinality'] });
    }
    expect(await sparkRows('lake.dv_bytes_thund', ['id', 'label'])).toEqual(await sparkRows('lake.dv_bytes_spark', ['id', 'label']));
  }, 600_000);
});

describe('equality deletes by a foreign writer (Iceberg Java API)', () => {
  it('Thund applies them by sequence number, upserts into the table, and Spark agrees', async () => {
    const t = new ModelledTable(wh, 'lake.eq_deletes', ID_NAME_QTY);
    const columns = ['id', 'name', 'qty'];
    const name = spark.table('lake.eq_deletes');
    await t.createModel();
    await spark.sql(`CREATE TABLE ${name} (id BIGINT, name STRING, qty BIGINT) USING iceberg TBLPROPERTIES (${MOR})`);
    await spark.sql(`INSERT INTO ${name} SELECT id, concat('sku-', id % 40), id FROM range(0, 200)`);
    await wh.session.run(`INSERT INTO ${t.model} SELECT range, 'sku-' || (range % 40), range FROM range(0, 200)`);

    const byId = await spark.equalityDeletes('lake.eq_deletes', ['id'], [['5'], ['6'], ['7'], ['150'], ['199'], ['1000']]);
    expect(byId.record_count).toBe(6);
    const byName = await spark.equalityDeletes('lake.eq_deletes', ['name'], [['sku-13'], ['sku-21']]);
    await wh.session.run(`DELETE FROM ${t.model} WHERE id IN (5, 6, 7, 150, 199, 1000) OR name IN ('sku-13', 'sku-21')`);
    // Rows added after the deletes are not deleted by them, whatever their values.
    await spark.sql(`INSERT INTO ${name} SELECT id, concat('sku-', id % 40), id FROM range(200, 240)`);
    await wh.session.run(`INSERT INTO ${t.model} SELECT range, 'sku-' || (range % 40), range FROM range(200, 240)`);

    const files = await spark.files('lake.eq_deletes');
    const equality = files.data_files.flatMap((f) => f.deletes).filter((d) => d.content === 'EQUALITY_DELETES');
    expect(new Set(equality.map((d) => d.path))).toEqual(new Set([byId.path, byName.path]));
    expect(await sparkRows('lake.eq_deletes', columns)).toEqual(await t.expected());
    expect(await t.thundRows()).toEqual(await t.expected());

    // Deleted keys come back, live keys change, new ones are added; then a merge-on-read delete.
    await t.upsert(`SELECT id::BIGINT AS id, 'thund-' || id AS name, (id * 100)::BIGINT AS qty FROM (VALUES (5), (10), (13), (213), (300)) v(id)`);
    await t.deleteWhere('qty BETWEEN 100 AND 120');
    const expected = await t.expected();
    // 200 − 5 (by id) − 10 (by name) + 40 + 3 (5 and 13 back, 300 new) − 20 (qty 100–120 live; 101 was deleted by name).
    expect(expected.length).toBe(208);
    expect(await t.thundRows()).toEqual(expected);
    expect(await sparkRows('lake.eq_deletes', columns)).toEqual(expected);
    const count = await spark.query(`SELECT count(*) AS n FROM ${name}`);
    expect(count.rows).toEqual([{ n: String(expected.length) }]);
    const inspected = await thundAsync(['inspect', 'lake.eq_deletes', '--warehouse', warehouse, '--json']);
    expect(inspected.status, inspected.stderr).toBe(0);
    expect(String((parseJson(inspected.stdout, 'thund inspect --json') as { rowCount: unknown }).rowCount)).toBe(String(expected.length));
    const after = await spark.files('lake.eq_deletes');
    expectDeletionVectorsConsistent('lake.eq_deletes', after, await sparkLineage('lake.eq_deletes', columns, ['id']), { equalityDeletes: true });
    expect(after.data_files.some((f) => f.deletes.some((d) => d.format === 'PUFFIN'))).toBe(true);
  }, 600_000);
});

describe("the project's other readers on a Thund v3 table with deletion vectors", () => {
  let t: ModelledTable;
  const readArgs = () => ({ catalogDb, warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: 'lake.thund_dv_readers' });

  beforeAll(async () => {
    t = new ModelledTable(wh, 'lake.thund_dv_readers', LONG_LABEL);
    await t.createV3();
    for (const from of [0, 50]) await t.append(`SELECT range::BIGINT AS id, 'v0-' || range AS label FROM range(${from}, ${from + 50})`);
    await t.deleteWhere('id % 4 = 1');
    await t.upsert(`SELECT range::BIGINT AS id, 'v1-' || range AS label FROM range(40, 60)`);
    await t.deleteWhere('id IN (2, 42, 98)');
  }, 120_000);

  it('pyiceberg 0.12 reads exactly the rows of the model (it applies Puffin deletion vectors)', async () => {
    const read = await readWithPyiceberg(readArgs());
    expect(read.formatVersion).toBe(3);
    expect(read.dataFiles.some((f) => f.deleteFileCount > 0)).toBe(true);
    expect(sortedKeys(read.rows, ['id', 'label'])).toEqual(await t.expected());
  }, 300_000);

  it(`the interop lane's Spark reader (Spark ${SPARK_VERSION}, Iceberg ${ICEBERG_SPARK_VERSION}) reads exactly the rows of the model`, async () => {
    const read = await readWithSpark(readArgs());
    expect(read.formatVersion).toBe(3);
    // Planned as Iceberg 1.12 plans it: each of the three data files with its one vector.
    const planned = (await spark.files('lake.thund_dv_readers')).data_files;
    expect(read.dataFiles.map((f) => [f.filePath, f.deleteFileCount]).sort()).toEqual(planned.map((f) => [f.path, f.deletes.length]).sort());
    expect(planned.map((f) => f.deletes.length)).toEqual([1, 1, 1]);
    expect(sortedKeys(read.rows, ['id', 'label'])).toEqual(await t.expected());
  }, 600_000);
});
