/**
 * A small pipeline for REST catalog tests run through the built CLI: the quickstart's orders
 * into one table (optionally partitioned), a catalog block the test writes, S3 storage on the
 * stack's MinIO with keys from the variables named; and the rows its data files hold, read by an
 * independent S3 client and DuckDB.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseS3Location } from '../../../connectors/storage/s3-file-io.js';
import { quoteLiteral, type DuckDbSession } from '../../../src/duckdb/session.js';
import { QUICKSTART_INPUT } from '../../interop/quickstart-expected.js';

export interface OrdersPipeline {
  readonly table: string;
  /** The `catalog:` block's lines below `catalog:`, indented by two spaces. */
  readonly catalog: readonly string[];
  /** Variables holding the S3 key id and secret. */
  readonly keyVariables: { readonly id: string; readonly secret: string };
  readonly partitionedBy?: string;
  /** Read the orders with STREAM(): a streaming flow, with its checkpoint beside the table. */
  readonly streaming?: boolean;
}

export function ordersPipeline(options: OrdersPipeline): string {
  return `pipeline: rest_orders
sources:
  orders:
    format: parquet
    path: ${QUICKSTART_INPUT}
tables:
  ${options.table}:
    mode: append${options.partitionedBy === undefined ? '' : `\n    partitioned_by: [${JSON.stringify(options.partitionedBy)}]`}
flows:
  load:
    target: ${options.table}
    sql: SELECT CAST(id AS BIGINT) AS order_id, customer FROM ${options.streaming === true ? 'STREAM(orders)' : 'orders'}
catalog:
${options.catalog.join('\n')}
storage:
  s3:
    endpoint: \${THUND_TEST_S3_ENDPOINT}
    region: \${THUND_TEST_S3_REGION}
    path_style: true
    access_key_id_env: ${options.keyVariables.id}
    secret_access_key_env: ${options.keyVariables.secret}
`;
}

/** Rows and distinct order ids in the data files at `locations`, downloaded into `scratch`. */
export async function orderRows(s3: S3Client, session: DuckDbSession, scratch: string, locations: readonly string[]): Promise<{ rows: number; ids: number }> {
  const local = await Promise.all(
    locations.map(async (location) => {
      const { bucket, key } = parseS3Location(location);
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const path = join(scratch, `${randomUUID()}.parquet`);
      await writeFile(path, await object.Body!.transformToByteArray());
      return path;
    }),
  );
  const [row] = await session.queryJson(`SELECT count(*) AS n, count(DISTINCT order_id) AS ids FROM read_parquet([${local.map(quoteLiteral).join(', ')}])`);
  return { rows: Number(row?.['n']), ids: Number(row?.['ids']) };
}
