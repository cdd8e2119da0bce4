/**
 * Trino 483 on the Iceberg REST catalog fixture backed by MinIO (the configuration of the users'
 * compose stack): Trino creates a table through the REST catalog, its files land in MinIO, and
 * the rows and Iceberg types read back are the ones written. Thund's own REST writes join this
 * lane once the REST catalog client commits tables (issue 4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { icebergTypeOfTrino, readWithTrino, runTrinoQuery, type TrinoTable } from '../interop/trino.js';
import { verifyTableRows, verifyTableSchema, type ColumnType, type Row } from '../interop/verify.js';
import { startMinio, type RunningMinio } from '../stack/minio.js';
import { startRestCatalog, type RunningRestCatalog } from '../stack/rest-catalog.js';
import { summaryLine } from '../stack/service.js';
import { startTrino, type RunningTrino } from '../stack/trino.js';

const COLUMNS: ColumnType[] = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'decimal(12, 2)' },
  { name: 'at', type: 'timestamptz' },
  { name: 'day', type: 'date' },
  { name: 'flag', type: 'boolean' },
];

/** What the CTAS below writes; µs since epoch for the timestamps (microsecond digits on purpose). */
const EXPECTED: Row[] = [
  { id: 1n, name: 'Zoë', amount: '12.50', at: 1_700_000_000_123_456n, day: '2023-11-14', flag: true },
  { id: 2n, name: 'Łukasz', amount: '-0.05', at: 1_700_000_123_000_001n, day: '2023-11-15', flag: false },
  { id: 9_007_199_254_740_993n, name: 'big id', amount: '9999999999.99', at: null, day: null, flag: null },
];

const CTAS = `
  CREATE TABLE rest.lake.orders AS
  SELECT * FROM (VALUES
    (BIGINT '1', VARCHAR 'Zoë', DECIMAL '12.50', TIMESTAMP '2023-11-14 22:13:20.123456 UTC', DATE '2023-11-14', true),
    (BIGINT '2', VARCHAR 'Łukasz', CAST(DECIMAL '-0.05' AS DECIMAL(12, 2)), TIMESTAMP '2023-11-14 22:15:23.000001 UTC', DATE '2023-11-15', false),
    (BIGINT '9007199254740993', VARCHAR 'big id', CAST(DECIMAL '9999999999.99' AS DECIMAL(12, 2)),
     CAST(NULL AS TIMESTAMP(6) WITH TIME ZONE), CAST(NULL AS DATE), CAST(NULL AS BOOLEAN))
  ) AS t (id, name, amount, at, day, flag)`;

const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('trino 483 on the REST catalog + MinIO', () => {
  let minio: RunningMinio;
  let rest: RunningRestCatalog;
  let trino: RunningTrino;
  let table: TrinoTable;

  beforeAll(async () => {
    minio = await startMinio();
    rest = await startRestCatalog(minio);
    const startedAt = Date.now();
    trino = await startTrino({ catalogs: { rest: { type: 'rest', uri: rest.uri, s3: minio } } });
    console.log([summaryLine(minio, minio.endpoint), summaryLine(rest, rest.uri), `${summaryLine(trino, trino.uri)} (ready in ${seconds(startedAt)})`].join('\n'));
  });

  afterAll(async () => {
    await trino?.stop();
    await rest?.stop();
    await minio?.stop();
  });

  it('creates a table through the REST catalog and reads back the same rows and types', async () => {
    const queriedAt = Date.now();
    await runTrinoQuery('CREATE SCHEMA rest.lake', { uri: trino.uri });
    await runTrinoQuery(CTAS, { uri: trino.uri });
    table = await readWithTrino({ uri: trino.uri, catalog: 'rest', table: 'lake.orders' });
    console.log(`trino wrote and read rest.lake.orders in ${seconds(queriedAt)}`);
    verifyTableSchema({
      expected: COLUMNS,
      actual: table.columns.map((column) => ({ name: column.name, type: icebergTypeOfTrino(column.type) })),
      reader: 'trino',
    });
    verifyTableRows({ expected: EXPECTED, actual: table.rows, columns: COLUMNS, reader: 'trino', table: 'lake.orders' });
    expect(table.snapshots).toHaveLength(1);
  });

  it('keeps the table files in MinIO', async () => {
    const s3 = new S3Client({
      endpoint: minio.endpoint,
      region: minio.region,
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
    });
    try {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: minio.bucket }));
      const keys = (listed.Contents ?? []).map((object) => object.Key ?? '');
      expect(keys.some((key) => key.endsWith('.metadata.json'))).toBe(true);
      expect(keys.some((key) => key.endsWith('.parquet'))).toBe(true);
    } finally {
      s3.destroy();
    }
  });
});
