/**
 * bench/commit: commit throughput of small appends through a REST catalog. Thund (a tiny Parquet
 * file written by DuckDB, then commitSnapshot) beside pyiceberg (table.append of a pyarrow table,
 * bench/commit/pyiceberg_appends.py in the interop venv), against the same REST catalog and MinIO,
 * alternating rounds and keeping the best of each. Prints commits/s for both and the ratio.
 *
 * Needs a running stack (`npm run stack:up`, then `source` the stack.env it writes):
 *   npm run bench:commit [-- --commits 50 --rows 100 --rounds 2]
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { z } from 'zod';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { pyicebergPython } from '../../test/interop/pyiceberg.js';

const STACK_VARIABLES = [
  'THUND_TEST_REST_URI',
  'THUND_TEST_S3_ENDPOINT',
  'THUND_TEST_S3_REGION',
  'THUND_TEST_S3_ACCESS_KEY',
  'THUND_TEST_S3_SECRET_KEY',
] as const;

const missing = STACK_VARIABLES.filter((name) => (process.env[name] ?? '') === '');
if (missing.length > 0) {
  console.error(
    `bench:commit needs the running test stack, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set.\n` +
      'Start it with `npm run stack:up` (or use one already running) and load its settings:\n' +
      '  set -a; source "$(ls -t ~/.cache/thund/stack-runs/*/stack.env | head -1)"; set +a',
  );
  process.exit(2);
}
const env = (name: (typeof STACK_VARIABLES)[number]): string => process.env[name] ?? '';

const { values } = parseArgs({
  options: {
    commits: { type: 'string', default: '50' },
    rows: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' },
  },
});
const commits = Number(values.commits);
const rows = Number(values.rows);
const rounds = Number(values.rounds);

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'note', required: false, type: primitive('string') },
  ],
};

const io = new S3FileIO({
  endpoint: env('THUND_TEST_S3_ENDPOINT'),
  region: env('THUND_TEST_S3_REGION'),
  forcePathStyle: true,
  credentials: { accessKeyId: env('THUND_TEST_S3_ACCESS_KEY'), secretAccessKey: env('THUND_TEST_S3_SECRET_KEY') },
});
const catalog = await RestCatalog.connect({ uri: env('THUND_TEST_REST_URI'), io });
const namespace = [`bench_commit_${randomUUID().slice(0, 8)}`];
await catalog.createNamespace(namespace);
const session = await DuckDbSession.open();

interface RoundResult {
  readonly seconds: number;
  readonly snapshots: number;
  readonly totalRecords: string;
}

async function appendWithThund(metadata: TableMetadata, id: TableIdentifier, firstId: number): Promise<TableMetadata> {
  const files = await writeDataFiles({
    session,
    query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS note FROM range(${firstId}, ${firstId + rows})`,
    schema,
    specId: metadata.defaultSpecId,
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'bench-commit',
  });
  // Like pyiceberg's Table, the next commit starts from the metadata this one returned.
  const result = await commitSnapshot({ catalog, identifier: id, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
  return result.table.metadata;
}

async function thundRound(round: number): Promise<RoundResult> {
  const id = { namespace, name: `thund_${round}` };
  let metadata = (await catalog.createTable(id, { schema })).metadata;
  metadata = await appendWithThund(metadata, id, 0); // untimed warm-up, as on the pyiceberg side
  const started = performance.now();
  for (let commit = 0; commit < commits; commit += 1) metadata = await appendWithThund(metadata, id, (commit + 1) * rows);
  const seconds = (performance.now() - started) / 1000;
  const reloaded = (await catalog.loadTable(id)).metadata;
  const current = reloaded.snapshots.find((snapshot) => snapshot.snapshotId === reloaded.currentSnapshotId);
  return { seconds, snapshots: reloaded.snapshots.length, totalRecords: current?.summary['total-records'] ?? '?' };
}

const run = promisify(execFile);
const python = await pyicebergPython();
const script = join(import.meta.dirname, 'pyiceberg_appends.py');

const pyicebergReport = z.object({ seconds: z.number().positive(), snapshots: z.number().int(), total_records: z.number().int() });

async function pyicebergRound(round: number): Promise<RoundResult> {
  const name = `pyiceberg_${round}`;
  const args = [script, '--uri', env('THUND_TEST_REST_URI'), '--namespace', namespace.join('.'), '--table', name, '--commits', String(commits), '--rows', String(rows)];
  const { stdout } = await run(python, args, { maxBuffer: 16 * 1024 * 1024, env: process.env });
  const report = pyicebergReport.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
  return { seconds: report.seconds, snapshots: report.snapshots, totalRecords: String(report.total_records) };
}

let thundBest: RoundResult | undefined;
let pyicebergBest: RoundResult | undefined;
for (let round = 0; round < rounds; round += 1) {
  const thund = await thundRound(round);
  if (thundBest === undefined || thund.seconds < thundBest.seconds) thundBest = thund;
  const pyiceberg = await pyicebergRound(round);
  if (pyicebergBest === undefined || pyiceberg.seconds < pyicebergBest.seconds) pyicebergBest = pyiceberg;
}
session.close();
await catalog.close();
if (thundBest === undefined || pyicebergBest === undefined) throw new Error('bench:commit ran no rounds (--rounds must be >= 1)');

const rate = (result: RoundResult): number => commits / result.seconds;
const line = (label: string, result: RoundResult): string =>
  `${label.padEnd(26)}${result.seconds.toFixed(2).padStart(7)} s  ${rate(result).toFixed(1).padStart(6)} commits/s  ` +
  `(table: ${result.snapshots} snapshots, ${result.totalRecords} rows)`;
console.log(`appends                   ${commits} of ${rows} rows each, through ${env('THUND_TEST_REST_URI')} (best of ${rounds} alternating rounds)`);
console.log(line('thund commitSnapshot', thundBest));
console.log(line('pyiceberg table.append', pyicebergBest));
console.log(`ratio thund / pyiceberg   ${(rate(thundBest) / rate(pyicebergBest)).toFixed(2)}`);
