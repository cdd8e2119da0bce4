/**
 * bench/compact: compact a table of --files small data files (default 2,000) with position
 * deletes, once with Thund (`thund maintain --compact`, the built CLI) and once with Spark's
 * `CALL system.rewrite_data_files` (delete-file-threshold 1: every file with deletes is
 * rewritten), each on its own copy of the same table, in one run. Prints each side's wall time
 * and the peak RSS of its process tree (sampled from /proc every 100 ms), and checks that both
 * copies read back the same rows (Thund's scan).
 *
 * The table is built by Thund's own writers in an embedded catalog: unpartitioned, format v2,
 * --files appends of --rows-per-file rows, then three merge-on-read deletes (position delete
 * files). The copy is the same metadata file registered under a second name: both copies start
 * from the same snapshot and files, and each engine commits to its own.
 *
 * Spark is Spark 4.1 with Iceberg's 1.12 runtime (test/interop/spark-v3.ts's install), reading
 * the embedded catalog's SQLite file as Iceberg's JDBC catalog. Its wall time is the CALL alone
 * (a JVM start is not counted); Thund's is the whole CLI process.
 *
 *   npm run build && npm run bench:compact [-- --files 2000 --rows-per-file 500 --no-spark --keep]
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { dataLocation } from '../../src/table/locations.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { prepareSparkV3 } from '../../test/interop/spark-v3.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '2000' },
    'rows-per-file': { type: 'string', default: '500' },
    'no-spark': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const fileCount = Number(values.files);
const rowsPerFile = Number(values['rows-per-file']);
if (!(fileCount > 0 && rowsPerFile > 0)) throw new Error('--files and --rows-per-file must be positive');
const CLI = resolve(import.meta.dirname, '../../dist/bin/thund.js');
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);

const work = await mkdtemp(join(tmpdir(), 'thund-bench-compact-'));
const warehouse = join(work, 'warehouse');
const catalogDb = join(warehouse, 'catalog.db');
const THUND_TABLE = { namespace: ['db'], name: 'events' };
const SPARK_TABLE = { namespace: ['db'], name: 'events_spark' };

const rowSql = (from: number): string =>
  `SELECT id::BIGINT AS id, 'customer-' || (id % 1000) AS customer, ((id * 7919) % 100000) / 100.0 AS amount, ` +
  `TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(id) AS ts FROM range(${from}, ${from + rowsPerFile}) t(id)`;

/** Builds the table with Thund and registers its copy; returns the live row count. */
async function build(): Promise<number> {
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: catalogDb, warehouse: toFileUri(warehouse), io });
  const session = await DuckDbSession.open();
  try {
    await catalog.createNamespace(['db']);
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'customer', required: false, type: primitive('string') },
      { name: 'amount', required: false, type: primitive('double') },
      { name: 'ts', required: false, type: primitive('timestamptz') },
    ]);
    await catalog.createTable(THUND_TABLE, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: { 'format-version': '2' } });
    const perCommit = 100;
    for (let start = 0; start < fileCount; start += perCommit) {
      const { metadata } = await catalog.loadTable(THUND_TABLE);
      const files: DataFile[] = [];
      for (let i = start; i < Math.min(fileCount, start + perCommit); i++) {
        const written = await writeDataFiles({ session, query: rowSql(i * rowsPerFile), schema: currentSchema(metadata), specId: 0, dataLocation: dataLocation(metadata), io, properties: metadata.properties, writerName: 'bench load' });
        files.push(...written);
      }
      await commitSnapshot({ catalog, identifier: THUND_TABLE, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    }
    const target = { catalog, identifier: THUND_TABLE, io, session };
    for (const predicate of ['id % 10 = 1', 'id % 17 = 2', 'id % 101 = 3']) await deleteWhere(target, predicate);
    const table = await catalog.loadTable(THUND_TABLE);
    await catalog.registerTable(SPARK_TABLE, table.metadataLocation);
    return await liveRows(catalog, io, session, THUND_TABLE);
  } finally {
    session.close();
    await catalog.close();
  }
}

async function liveRows(catalog: SqlCatalog, io: LocalFileIO, session: DuckDbSession, identifier: typeof THUND_TABLE): Promise<number> {
  const { metadata } = await catalog.loadTable(identifier);
  const rows = await openTableRows({ session, io, metadata });
  try {
    const [row] = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM (${rows.sql})`);
    return Number(row?.['n']);
  } finally {
    await rows.release();
  }
}

interface Measured {
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly stdout: string;
}

/** Runs a command, sampling the RSS of its whole process tree; wall time from spawn to exit. */
function measure(command: string, args: readonly string[]): Promise<Measured> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setInterval(() => {
      if (child.pid !== undefined) peak = Math.max(peak, treeRssKiB(child.pid));
    }, 100);
    child.on('error', reject);
    child.on('close', (status) => {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      if (status !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${status}: ${stderr.slice(-4000)}`));
      else resolvePromise({ seconds, peakRssMiB: peak / 1024, stdout });
    });
  });
}

/** Resident KiB of a process and all its descendants (from /proc). */
function treeRssKiB(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(name), kib);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while being read.
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

async function filesAfter(identifier: typeof THUND_TABLE): Promise<{ files: number; rows: number }> {
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: catalogDb, warehouse: toFileUri(warehouse), io });
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const { metadata } = await catalog.loadTable(identifier);
    return { files: (await liveDataFiles(io, metadata)).length, rows: await liveRows(catalog, io, session, identifier) };
  } finally {
    session.close();
    await catalog.close();
  }
}

try {
  const buildStarted = performance.now();
  const rows = await build();
  console.log(`table: ${fileCount} data files of ${rowsPerFile} rows, 3 position delete commits, ${rows} live rows (built in ${((performance.now() - buildStarted) / 1000).toFixed(1)} s)`);

  const thund = await measure(process.execPath, [CLI, 'maintain', 'db.events', '--compact', '--warehouse', warehouse]);
  const thundAfter = await filesAfter(THUND_TABLE);
  console.log(`thund: ${thund.stdout.trim()}`);
  if (thundAfter.rows !== rows) throw new Error(`thund: ${thundAfter.rows} rows after compaction, ${rows} before`);
  const lines = [['', 'wall s', 'peak RSS MiB', 'files after'], ['thund', thund.seconds.toFixed(2), thund.peakRssMiB.toFixed(0), String(thundAfter.files)]];

  if (!values['no-spark']) {
    const { python, jars } = await prepareSparkV3();
    const spark = await measure(python, [
      join(import.meta.dirname, 'spark_compact.py'),
      '--jars', jars.join(','),
      '--catalog-db', catalogDb,
      '--warehouse', pathToFileURL(warehouse).href,
      '--scratch', join(work, 'spark-scratch'),
      '--table', 'db.events_spark',
    ]);
    const answer = JSON.parse(spark.stdout.trim().split('\n').at(-1)!) as { seconds: number; rewritten_files: number; added_files: number };
    const sparkAfter = await filesAfter(SPARK_TABLE);
    if (sparkAfter.rows !== rows) throw new Error(`spark: ${sparkAfter.rows} rows after compaction, ${rows} before`);
    console.log(`spark: rewrote ${answer.rewritten_files} files into ${answer.added_files}`);
    lines.push(['spark (CALL only)', answer.seconds.toFixed(2), spark.peakRssMiB.toFixed(0), String(sparkAfter.files)]);
    lines.push(['spark (whole process)', spark.seconds.toFixed(2), spark.peakRssMiB.toFixed(0), String(sparkAfter.files)]);
  }
  for (const line of lines) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(22) : cell.padStart(14))).join(''));
} finally {
  if (values.keep) console.log(`kept: ${work}`);
  else await rm(work, { recursive: true, force: true });
}
