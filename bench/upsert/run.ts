/**
 * bench/upsert: upsert --changes rows (existing keys, new values) into a --rows table with
 * Thund's merge-on-read upsert, beside Spark `MERGE INTO` (merge-on-read, Iceberg's Spark
 * runtime) on the same Parquet inputs in the same script. Only the upsert / MERGE is timed; both
 * tables are loaded first, and both results are checked (row count, no key twice). Prints wall
 * time of both and the ratio Thund / Spark (goal <= 0.5).
 *
 * Both tables are partitioned by bucket(16, id) (Iceberg's bucket transform on both sides), or
 * unpartitioned with --unpartitioned.
 *
 *   npm run bench:upsert [-- --rows 10000000 --changes 1000000 --unpartitioned]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import { decimal, primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { upsert } from '../../src/table/upsert.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';
import { prepareSparkReader } from '../../test/stack/spark.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    changes: { type: 'string', default: '1000000' },
    unpartitioned: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const changes = Number(values.changes);
const partitioned = !values.unpartitioned;
if (!(changes > 0 && changes <= rows)) throw new Error('--changes must be between 1 and --rows');
const work = await mkdtemp(join(tmpdir(), 'thund-bench-upsert-'));
const base = join(work, 'base.parquet');
const changed = join(work, 'changes.parquet');
const session = await DuckDbSession.open();

const rowSql = (version: string): string => `
  SELECT id::BIGINT AS id, 'customer-' || (id % 100000) || ${quoteLiteral(version)} AS customer,
         (((id * 7919) % 1000000) / 100.0)::DECIMAL(12,2) AS amount,
         TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(id) AS ordered_at, (id % 50)::INTEGER AS qty`;
// Changed keys spread over the whole id range (a stride coprime to nothing in particular), unique.
const stride = Math.floor(rows / changes);
await session.run(`COPY (${rowSql('')} FROM range(${rows}) t(id)) TO ${quoteLiteral(base)} (FORMAT parquet)`);
await session.run(`COPY (${rowSql('-changed')} FROM (SELECT range * ${stride} AS id FROM range(${changes}))) TO ${quoteLiteral(changed)} (FORMAT parquet)`);

async function thund(): Promise<{ seconds: number; rows: number; distinct: number; deleteFiles: number }> {
  const io = new LocalFileIO();
  const warehouse = join(work, 'thund');
  const catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
  try {
    const identifier = { namespace: ['db'], name: 'orders' };
    await catalog.createNamespace(['db']);
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'customer', required: false, type: primitive('string') },
      { name: 'amount', required: false, type: decimal(12, 2) },
      { name: 'ordered_at', required: false, type: primitive('timestamptz') },
      { name: 'qty', required: false, type: primitive('int') },
    ]);
    const partitionSpec = { specId: 0, fields: [{ sourceId: fields[0]!.id, fieldId: 1000, name: 'id_bucket', transform: 'bucket[16]' }] };
    const { metadata } = await catalog.createTable(identifier, {
      schema: { schemaId: 0, identifierFieldIds: [], fields },
      properties: { 'write.target-file-size-bytes': String(128 * 1024 * 1024) },
      ...(partitioned ? { partitionSpec } : {}),
    });
    const files = await writePartitionedDataFiles({
      session,
      query: `SELECT * FROM read_parquet(${quoteLiteral(base)})`,
      schema: currentSchema(metadata),
      spec: defaultSpec(metadata),
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'bench load',
    });
    await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    const started = performance.now();
    const result = await upsert({ catalog, identifier, io, session }, { keyColumns: ['id'], sourceQuery: `SELECT * FROM read_parquet(${quoteLiteral(changed)})` });
    const seconds = (performance.now() - started) / 1000;
    const table = await catalog.loadTable(identifier);
    const scan = await openTableRows({ session, io, metadata: table.metadata });
    try {
      const [count] = await session.queryJson(`SELECT count(*)::VARCHAR AS n, count(DISTINCT id)::VARCHAR AS d FROM (${scan.sql})`);
      return { seconds, rows: Number(count?.['n']), distinct: Number(count?.['d']), deleteFiles: result.addedDeleteFiles.length };
    } finally {
      await scan.release();
    }
  } finally {
    await catalog.close();
  }
}

async function spark(): Promise<{ seconds: number; rows: number; distinct: number; deleteFiles: number }> {
  const { python, jars } = await prepareSparkReader();
  const { stdout } = await run(
    python,
    [join(import.meta.dirname, 'spark_merge.py'), '--jars', jars.join(','), '--warehouse', join(work, 'spark'), '--base', base, '--changes', changed, ...(partitioned ? ['--bucket', '16'] : [])],
    { maxBuffer: 16 * 1024 * 1024, timeout: 3_600_000 },
  );
  const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { merge_seconds: number; rows: number; distinct_ids: number; delete_files: number };
  return { seconds: out.merge_seconds, rows: out.rows, distinct: out.distinct_ids, deleteFiles: out.delete_files };
}

try {
  const layout = partitioned ? 'partitioned by bucket(16, id)' : 'unpartitioned';
  console.log(`bench/upsert: ${changes.toLocaleString('en')} changed rows into ${rows.toLocaleString('en')} rows, ${layout}, merge-on-read`);
  const ours = await thund();
  console.log(`thund upsert:       ${ours.seconds.toFixed(2)} s  (${ours.deleteFiles} delete files; after: ${ours.rows} rows, ${ours.distinct} distinct ids)`);
  const theirs = await spark();
  console.log(`spark MERGE INTO:   ${theirs.seconds.toFixed(2)} s  (${theirs.deleteFiles} delete files; after: ${theirs.rows} rows, ${theirs.distinct} distinct ids)`);
  for (const [who, r] of [['thund', ours], ['spark', theirs]] as const) {
    if (r.rows !== rows || r.distinct !== rows) throw new Error(`${who}: expected ${rows} rows with distinct ids, got ${r.rows} rows, ${r.distinct} distinct`);
  }
  console.log(`ratio thund / spark: ${(ours.seconds / theirs.seconds).toFixed(3)} (goal <= 0.5)`);
} finally {
  session.close();
  if (!values.keep) await rm(work, { recursive: true, force: true });
}
