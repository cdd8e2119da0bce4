/**
 * The quickstart landed in MinIO through each REST catalog server of the stack (the Iceberg REST
 * fixture and Nessie) by the built CLI, from a pipeline whose catalog and storage blocks take
 * every address from the environment (`${…}`) and the S3 keys by variable name: run twice, then
 * read by pyiceberg and by Spark (each through the same REST catalog), which must see the
 * declared schema, both snapshots (Nessie's metadata keeps only the current one, without a parent
 * id) and exactly the expected rows twice over.
 */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/iceberg/json.js';
import { thund, type CliResult, type InspectReport } from '../e2e/cli.js';
import { REST_SERVERS, restServerUri, type RestServerUnderTest } from '../integration/rest-support/rest-servers.js';
import { TEST_S3_STORAGE_BLOCK, testS3Bucket, testS3Client } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { QUICKSTART_COLUMNS, QUICKSTART_INPUT, QUICKSTART_SPEC, QUICKSTART_TABLE, quickstartExpectedRows } from './quickstart-expected.js';
import { stackRestReadTarget, type ReaderTable, type RestCatalogReadArgs } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, verifyTableSchema, type Row } from './verify.js';

/** The catalog block for `server`: its address from the environment, its warehouse if it has one. */
const connectionBlocks = (server: RestServerUnderTest): string => `
catalog:
  type: rest
  uri: \${${server.uriVariable}}${server.warehouse === undefined ? '' : `\n  warehouse: ${server.warehouse}`}
${TEST_S3_STORAGE_BLOCK}`;

/** The quickstart spec with its table renamed, its input by absolute path, and the blocks above. */
function restQuickstartSpec(server: RestServerUnderTest, table: string): string {
  const original = readFileSync(QUICKSTART_SPEC, 'utf8');
  const renamed = original.replaceAll(QUICKSTART_TABLE, table).replace('path: data/orders.parquet', `path: ${QUICKSTART_INPUT}`);
  expect(renamed).not.toBe(original);
  return `${renamed}\n${connectionBlocks(server)}`;
}

/** The REST path prefix the server gives for its warehouse, as it sends it (plain REST, no Thund code). */
async function pathPrefix(uri: string, warehouse: string | undefined): Promise<string> {
  const response = await fetch(`${uri}/v1/config${warehouse === undefined ? '' : `?warehouse=${encodeURIComponent(warehouse)}`}`);
  const config = (await response.json()) as { defaults?: Record<string, string>; overrides?: Record<string, string> };
  const prefix = config.overrides?.['prefix'] ?? config.defaults?.['prefix'];
  return prefix === undefined || prefix === '' ? '' : `/${prefix}`;
}

const SPARK_TYPES: Record<string, string> = {
  long: 'bigint',
  string: 'string',
  'decimal(12, 2)': 'decimal(12,2)',
  timestamptz: 'timestamp',
  date: 'date',
  boolean: 'boolean',
};

describe.each(REST_SERVERS)('quickstart through the REST catalog ($name) into MinIO, read by pyiceberg and Spark', (server) => {
  /** A namespace of its own: the REST fixture keeps its tables across test runs. */
  const NAMESPACE = `quickstart_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const TABLE = `${NAMESPACE}.orders`;
  const currentSnapshotOnly = server.differences?.currentSnapshotOnly === true;
  let work: string;
  let specFile: string;
  let s3: S3Client;
  let expected: Row[];
  const runs: CliResult[] = [];
  const reports: InspectReport[] = [];
  const readers = new Map<string, ReaderTable>();

  const inspectJson = (): InspectReport => {
    const result = thund(['inspect', '--pipeline', specFile, '--json'], work);
    if (result.status !== 0) throw new Error(`thund inspect failed (${result.status}): ${result.stderr}`);
    return parseJson(result.stdout, 'thund inspect --json') as InspectReport;
  };

  const readArgs = (): RestCatalogReadArgs => ({
    rest: stackRestReadTarget(restServerUri(server)),
    catalogName: 'rest',
    table: TABLE,
    ...(server.warehouse === undefined ? {} : { warehouse: server.warehouse }),
  });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'thund-quickstart-rest-'));
    specFile = join(work, 'pipeline.yaml');
    writeFileSync(specFile, restQuickstartSpec(server, TABLE));
    s3 = testS3Client();
    expected = await quickstartExpectedRows();
    expect(expected.length).toBeGreaterThan(500);
    for (let run = 0; run < 2; run++) {
      // The second run is forced: with the same input it would otherwise be up to date and skipped.
      const result = thund(['run', specFile, ...(run > 0 ? ['--full-refresh'] : [])], work);
      runs.push(result);
      if (result.status !== 0) throw new Error(`thund run ${run + 1} failed (${result.status}): ${result.stderr}`);
      reports.push(inspectJson());
    }
  }, 180_000);

  afterAll(async () => {
    // Best effort: drop the table with its files, then the namespace (plain REST, no Thund code).
    const uri = process.env[server.uriVariable];
    if (uri !== undefined && reports.length > 0) {
      const base = `${uri}/v1${await pathPrefix(uri, server.warehouse).catch(() => '')}/namespaces/${NAMESPACE}`;
      await fetch(`${base}/tables/orders?purgeRequested=true`, { method: 'DELETE' }).catch(() => undefined);
      await fetch(base, { method: 'DELETE' }).catch(() => undefined);
    }
    s3?.destroy();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('runs twice through the CLI: quiet stderr, the catalog named, no secret printed', () => {
    const secret = requireServiceEnv('THUND_TEST_S3_SECRET_KEY');
    expect(runs.map((r) => r.stderr)).toEqual(['', '']);
    expect(runs[0]?.stdout).toContain(`created ${TABLE}`);
    expect(runs[1]?.stdout).toContain(`updated ${TABLE}`);
    expect(runs[1]?.stdout).toContain(`catalog: rest ${restServerUri(server)}`);
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
  });

  it('commits one append snapshot per run, each on top of the last, with the files in MinIO', async () => {
    const [first, second] = reports as [InspectReport, InspectReport];
    expect(first.snapshots).toHaveLength(1);
    expect(second.snapshots).toHaveLength(currentSnapshotOnly ? 1 : 2);
    const current = second.snapshots.at(-1);
    expect(String(current?.snapshotId)).toBe(String(second.currentSnapshotId));
    expect(String(current?.snapshotId)).not.toBe(String(first.currentSnapshotId));
    // Nessie's metadata has neither the older snapshot nor the parent id pointing to it.
    expect(String(current?.parentSnapshotId)).toBe(currentSnapshotOnly ? 'null' : String(first.currentSnapshotId));
    expect(Number(first.rowCount)).toBe(expected.length);
    expect(Number(second.rowCount)).toBe(2 * expected.length);
    expect(second.metadataLocation.startsWith(`s3://${testS3Bucket()}/`)).toBe(true);
    expect(second.dataFiles.length).toBeGreaterThanOrEqual(2);
    for (const file of second.dataFiles) {
      expect(file.path.startsWith(`s3://${testS3Bucket()}/`), file.path).toBe(true);
      const key = file.path.slice(`s3://${testS3Bucket()}/`.length);
      const head = await s3.send(new HeadObjectCommand({ Bucket: testS3Bucket(), Key: key }));
      expect(head.ContentLength).toBe(Number(file.fileSizeInBytes));
    }
  });

  it('pyiceberg (RestCatalog, PyArrow S3) sees the schema, both snapshots and the rows twice over', async () => {
    const table = await readWithPyiceberg(readArgs());
    readers.set('pyiceberg', table);
    verifyTableSchema({ expected: QUICKSTART_COLUMNS, actual: table.schema, reader: 'pyiceberg' });
    expect(table.schema.map((f) => [f.id, f.required])).toEqual(QUICKSTART_COLUMNS.map((_, i) => [i + 1, false]));
    expect(table.snapshots).toHaveLength(currentSnapshotOnly ? 1 : 2);
    expect(table.currentSnapshotId).toBe(String(reports[1]?.currentSnapshotId));
    expect(table.rowCount).toBe(2 * expected.length);
    verifyTableRows({ expected: [...expected, ...expected], actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'pyiceberg', table: TABLE });
  }, 300_000);

  it('Spark (REST catalog, Iceberg S3FileIO) sees the same schema, snapshots, files and rows', async () => {
    const started = Date.now();
    const table = await readWithSpark(readArgs());
    console.log(`spark read ${TABLE} through REST (${table.rowCount} rows) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    readers.set('spark', table);
    verifyTableSchema({ expected: QUICKSTART_COLUMNS, actual: table.schema, reader: 'spark' });
    expect(table.schema.map((f) => f.engineType)).toEqual(QUICKSTART_COLUMNS.map((c) => SPARK_TYPES[c.type]));
    expect(table.snapshots).toHaveLength(currentSnapshotOnly ? 1 : 2);
    verifyTableRows({ expected: [...expected, ...expected], actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'spark', table: TABLE });
    const pyiceberg = readers.get('pyiceberg');
    expect(pyiceberg, 'the pyiceberg read above failed').toBeDefined();
    expect(table.currentSnapshotId).toBe(pyiceberg!.currentSnapshotId);
    expect(table.snapshots).toEqual(pyiceberg!.snapshots);
    const byPath = (files: ReaderTable['dataFiles']) => [...files].sort((a, b) => a.filePath.localeCompare(b.filePath));
    expect(byPath(table.dataFiles)).toEqual(byPath(pyiceberg!.dataFiles));
  }, 600_000);
});
