/**
 * Writes the inputs of examples/sdp/pipeline.yaml: orders (batch), events (a stream of clicks
 * with event times) and customer changes (a CDC feed with op and sequence columns), as Parquet.
 * Deterministic: every value is arithmetic on the row number.
 *
 *   npx tsx examples/sdp/make-data.ts
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const folder = (name: string): string => fileURLToPath(new URL(`./data/${name}/`, import.meta.url));

const files: readonly [string, string][] = [
  [
    'orders',
    `SELECT i::BIGINT AS id, 'customer-' || (i % 7) AS customer, ((i * 7919) % 10000 + 100)::BIGINT AS amount_cents,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_minutes(i * 37) AS ordered_at
     FROM range(1, 201) t(i)`,
  ],
  [
    'events',
    `SELECT (i % 11)::BIGINT AS user_id, ['view', 'click', 'buy'][i % 3 + 1] AS kind,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i * 47) AS event_time
     FROM range(0, 500) t(i)`,
  ],
  [
    'changes',
    `SELECT (i % 20)::BIGINT AS customer_id, 'name-' || i AS name, ['Oslo', 'Lima', 'Pune'][i % 3 + 1] AS city,
       CASE WHEN i % 17 = 16 THEN 'd' ELSE 'u' END AS op, i::BIGINT AS seq
     FROM range(0, 120) t(i)`,
  ],
];

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const [name, sql] of files) {
  await mkdir(folder(name), { recursive: true });
  await connection.run(`COPY (${sql}) TO '${folder(name)}part-0.parquet' (FORMAT parquet)`);
}
connection.closeSync();
