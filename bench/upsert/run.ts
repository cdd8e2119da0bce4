/**
 * bench/upsert: upsert --changes rows (existing keys, new values) into a --rows table with
 * Thund's merge-on-read upsert, beside Spark `MERGE INTO` (merge-on-read, Iceberg's Spark
 * runtime) on the same Parquet inputs in the same script, once per Iceberg format version:
 * v2 (position delete files) and v3 (deletion vectors, Puffin). Only the upsert / MERGE is timed;
 * every table is loaded first, and every result is checked: row count, no key twice, and on v3 the
 * table's live delete files are deletion vectors (format PUFFIN) and the snapshot added no Parquet
 * position delete file. Prints the wall time of each, the ratio Thund v3 / v2 (goal <= 1: deletion
 * vectors must not make an upsert slower than position deletes) and Thund / Spark per version
 * (goal <= 0.5).
 *
 * Spark is Spark 4.0 with Iceberg's 4.0 runtime from test/stack/spark.ts (Iceberg 1.10.1, which
 * writes deletion vectors on v3 tables: they came in 1.8), one fresh Spark process per version;
 * Thund gets a fresh DuckDB session per version.
 *
 * Tables are partitioned by bucket(16, id) (Iceberg's bucket transform on both sides), or
 * unpartitioned with --unpartitioned. Thund's tables are loaded with write.target-file-size-bytes
 * of --target-file-size-mb (default 128; smaller gives more data files for the upsert to delete
 * from); Spark's load keeps its defaults. --no-spark runs Thund alone.
 *
 *   npm run bench:upsert [-- --rows 10000000 --changes 1000000 --unpartitioned --format-versions 2,3 --target-file-size-mb 128 --no-spark]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { DataFileContent, isDeletionVector } from '../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import { decimal, primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { liveFilesOf } from '../../src/table/delete-planning.js';
import { dataLocation } from '../../src/table/locations.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { upsert } from '../../src/table/upsert.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';
import { prepareSparkReader, ICEBERG_SPARK_VERSION, SPARK_VERSION } from '../../test/stack/spark.js';

type FormatVersion = 2 | 3;

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    changes: { type: 'string', default: '1000000' },
    unpartitioned: { type: 'boolean', default: false },
    'format-versions': { type: 'string', default: '2,3' },
    'target-file-size-mb': { type: 'string', default: '128' },
    'no-spark': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const changes = Number(values.changes);
const partitioned = !values.unpartitioned;
const targetFileSizeBytes = Math.round(Number(values['target-file-size-mb']) * 1024 * 1024);
if (!(targetFileSizeBytes > 0)) throw new Error('--target-file-size-mb must be a positive number');
if (!(changes > 0 && changes <= rows)) throw new Error('--changes must be between 1 and --rows');
const versions = [...new Set(values['format-versions'].split(',').map((v) => v.trim()).filter((v) => v !== ''))].map((v): FormatVersion => {
  if (v !== '2' && v !== '3') throw new Error(`--format-versions: "${v}" is not 2 or 3 (e.g. --format-versions 2,3)`);
  return Number(v) as FormatVersion;
});
if (versions.length === 0) throw new Error('--format-versions: name at least one of 2, 3');
versions.sort();
const work = await mkdtemp(join(tmpdir(), 'thund-bench-upsert-'));
const base = join(work, 'base.parquet');
const changed = join(work, 'changes.parquet');

const rowSql = (version: string): string => `
  SELECT id::BIGINT AS id, 'customer-' || (id % 100000) || ${quoteLiteral(version)} AS customer,
         (((id * 7919) % 1000000) / 100.0)::DECIMAL(12,2) AS amount,
         TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(id) AS ordered_at, (id % 50)::INTEGER AS qty`;
// Changed keys spread over the whole id range (a stride coprime to nothing in particular), unique.
const stride = Math.floor(rows / changes);
{
  const session = await DuckDbSession.open();
  try {
    await session.run(`COPY (${rowSql('')} FROM range(${rows}) t(id)) TO ${quoteLiteral(base)} (FORMAT parquet)`);
    await session.run(`COPY (${rowSql('-changed')} FROM (SELECT range * ${stride} AS id FROM range(${changes}))) TO ${quoteLiteral(changed)} (FORMAT parquet)`);
  } finally {
    session.close();
  }
}

interface Outcome {
  readonly seconds: number;
  /** Process CPU seconds (user + system, every thread) during the timed part; Thund only (in-process). */
  readonly cpuSeconds?: number;
  readonly rows: number;
  readonly distinct: number;
  /** Delete files the upsert / MERGE added. */
  readonly addedDeleteFiles: number;
  /** Of them, deletion vectors (Puffin blobs). */
  readonly addedDvs: number;
  /** Of them, Parquet (or other non-Puffin) position delete files. */
  readonly addedPositionDeleteFiles: number;
  /** The table's live delete files afterwards, counted by file format. */
  readonly liveDeleteFormats: Record<string, number>;
}

async function thund(version: FormatVersion): Promise<Outcome> {
  const io = new LocalFileIO();
  const warehouse = join(work, `thund-v${version}`);
  const catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
  const session = await DuckDbSession.open();
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
      properties: { 'write.target-file-size-bytes': String(targetFileSizeBytes), 'format-version': String(version) },
      ...(partitioned ? { partitionSpec } : {}),
    });
    if (metadata.formatVersion !== version) throw new Error(`thund: created a v${metadata.formatVersion} table, asked for v${version}`);
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
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    const result = await upsert({ catalog, identifier, io, session }, { keyColumns: ['id'], sourceQuery: `SELECT * FROM read_parquet(${quoteLiteral(changed)})` });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStarted);
    const table = await catalog.loadTable(identifier);
    const snapshot = table.metadata.snapshots.find((s) => s.snapshotId === table.metadata.currentSnapshotId);
    if (snapshot === undefined) throw new Error('thund: the table has no current snapshot after the upsert');
    const { deletes } = await liveFilesOf(io, snapshot);
    const liveDeleteFormats: Record<string, number> = {};
    for (const { file } of deletes) {
      const kind = file.content === DataFileContent.EqualityDeletes ? `${file.fileFormat} equality` : isDeletionVector(file) ? 'PUFFIN' : file.fileFormat;
      liveDeleteFormats[kind] = (liveDeleteFormats[kind] ?? 0) + 1;
    }
    const addedDvs = result.addedDeleteFiles.filter(isDeletionVector).length;
    const scan = await openTableRows({ session, io, metadata: table.metadata });
    try {
      const [count] = await session.queryJson(`SELECT count(*)::VARCHAR AS n, count(DISTINCT id)::VARCHAR AS d FROM (${scan.sql})`);
      return {
        seconds,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        rows: Number(count?.['n']),
        distinct: Number(count?.['d']),
        addedDeleteFiles: result.addedDeleteFiles.length,
        addedDvs,
        addedPositionDeleteFiles: result.addedDeleteFiles.length - addedDvs,
        liveDeleteFormats,
      };
    } finally {
      await scan.release();
    }
  } finally {
    session.close();
    await catalog.close();
  }
}

interface SparkOut {
  merge_seconds: number;
  rows: number;
  distinct_ids: number;
  format_version: number;
  added_delete_files: number;
  added_dvs: number;
  added_position_delete_files: number;
  live_delete_formats: Record<string, number>;
}

async function spark(version: FormatVersion): Promise<Outcome> {
  const { python, jars } = await prepareSparkReader();
  const { stdout } = await run(
    python,
    [
      join(import.meta.dirname, 'spark_merge.py'),
      '--jars', jars.join(','),
      '--warehouse', join(work, `spark-v${version}`),
      '--base', base,
      '--changes', changed,
      '--format-version', String(version),
      ...(partitioned ? ['--bucket', '16'] : []),
    ],
    { maxBuffer: 16 * 1024 * 1024, timeout: 3_600_000 },
  );
  const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as SparkOut;
  if (out.format_version !== version) throw new Error(`spark: the table is v${out.format_version}, asked for v${version}`);
  return {
    seconds: out.merge_seconds,
    rows: out.rows,
    distinct: out.distinct_ids,
    addedDeleteFiles: out.added_delete_files,
    addedDvs: out.added_dvs,
    addedPositionDeleteFiles: out.added_position_delete_files,
    liveDeleteFormats: out.live_delete_formats,
  };
}

/** What is wrong with a run's result (empty: it passed). */
function problems(version: FormatVersion, r: Outcome): string[] {
  const found: string[] = [];
  if (r.rows !== rows) found.push(`${r.rows} rows, expected ${rows}`);
  if (r.distinct !== r.rows) found.push(`${r.rows - r.distinct} keys more than once (${r.distinct} distinct ids)`);
  const live = Object.entries(r.liveDeleteFormats);
  if (version === 3) {
    if (r.addedDvs === 0) found.push('no deletion vector added');
    if (r.addedPositionDeleteFiles !== 0) found.push(`${r.addedPositionDeleteFiles} position delete files (not deletion vectors) added`);
    const other = live.filter(([format]) => format !== 'PUFFIN');
    if (other.length > 0) found.push(`live delete files that are not deletion vectors: ${other.map(([f, n]) => `${n} ${f}`).join(', ')}`);
  } else {
    if (r.addedDvs !== 0) found.push(`${r.addedDvs} deletion vectors added to a v2 table`);
    if (r.addedPositionDeleteFiles === 0) found.push('no position delete file added');
  }
  return found;
}

const describe = (r: Outcome): string =>
  `${r.addedDeleteFiles} delete files added (${r.addedDvs} DVs, ${r.addedPositionDeleteFiles} position delete files); ` +
  `live deletes: ${Object.entries(r.liveDeleteFormats).map(([f, n]) => `${n} ${f}`).join(', ') || 'none'}; after: ${r.rows} rows, ${r.distinct} distinct ids`;
const kind = (version: FormatVersion): string => (version === 2 ? 'v2 (position deletes)' : 'v3 (deletion vectors)');

try {
  const layout = partitioned ? 'partitioned by bucket(16, id)' : 'unpartitioned';
  console.log(`bench/upsert: ${changes.toLocaleString('en')} changed rows into ${rows.toLocaleString('en')} rows, ${layout}, merge-on-read, format versions ${versions.join(', ')}`);
  const failures: string[] = [];
  const report = (who: string, version: FormatVersion, r: Outcome): void => {
    const wrong = problems(version, r);
    console.log(`${`${who} ${kind(version)}:`.padEnd(64)} ${r.seconds.toFixed(2).padStart(7)} s  (${r.cpuSeconds === undefined ? '' : `cpu ${r.cpuSeconds.toFixed(2)} s; `}${describe(r)})${wrong.length === 0 ? '  check ok' : `  CHECK FAILED: ${wrong.join('; ')}`}`);
    failures.push(...wrong.map((w) => `${who} v${version}: ${w}`));
  };
  const ours = new Map<FormatVersion, Outcome>();
  const theirs = new Map<FormatVersion, Outcome>();
  for (const version of versions) {
    const r = await thund(version);
    ours.set(version, r);
    report('thund upsert', version, r);
  }
  if (!values['no-spark']) {
    for (const version of versions) {
      const r = await spark(version);
      theirs.set(version, r);
      report(`spark ${SPARK_VERSION}/iceberg ${ICEBERG_SPARK_VERSION} MERGE INTO`, version, r);
    }
  }
  const v2 = ours.get(2);
  const v3 = ours.get(3);
  if (v2 !== undefined && v3 !== undefined) console.log(`ratio thund v3 / v2:      ${(v3.seconds / v2.seconds).toFixed(3)} (goal <= 1)`);
  for (const version of versions) {
    const a = ours.get(version);
    const b = theirs.get(version);
    if (a !== undefined && b !== undefined) console.log(`ratio thund / spark v${version}: ${(a.seconds / b.seconds).toFixed(3)} (goal <= 0.5)`);
  }
  if (theirs.size === versions.length && versions.length === 2) {
    console.log(`(ratio spark v3 / v2:     ${(theirs.get(3)!.seconds / theirs.get(2)!.seconds).toFixed(3)})`);
  }
  if (failures.length > 0) throw new Error(`checks failed:\n  ${failures.join('\n  ')}`);
} finally {
  if (!values.keep) await rm(work, { recursive: true, force: true });
}
