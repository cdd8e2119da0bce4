/**
 * Writes examples/quickstart/data/orders.parquet: 1000 raw orders as an upstream system might
 * export them (epoch seconds, amounts in cents, dates as text). The pipeline's flow casts them
 * into the table's shape. Deterministic: every value is arithmetic on the row number, no random().
 *
 *   npx tsx examples/quickstart/make-data.ts
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const ROWS = 1000;
const output = fileURLToPath(new URL('./data/orders.parquet', import.meta.url));

const customers = [
  'Ada Lovelace',
  'Zoë Müller',
  'José Álvarez',
  '李雷',
  'Søren Kierkegaard',
  'Łukasz Nowak',
  'Αλέξης Παπαδόπουλος',
  'Дмитрий Иванов',
  'Siobhán O\u2019Brien',
  'Grace Hopper',
  'Ümit Yılmaz',
  'Ana Lúcia Ferreira',
  'Alan Turing',
  '佐藤 花子',
];

const sqlList = (values: readonly string[]): string => `[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ')}]`;

const copy = `
COPY (
  SELECT
    i::INTEGER AS id,
    -- every 13th order has no customer name (guest checkout)
    CASE WHEN i % 13 = 0 THEN NULL ELSE ${sqlList(customers)}[(i * 5) % ${customers.length} + 1] END AS customer,
    ((i * 7919) % 250000 + 199)::BIGINT AS amount_cents,
    ['eur', 'usd', 'gbp', 'chf', 'jpy'][i % 5 + 1] AS currency,
    -- 2024-01-01T00:00:00Z plus about an hour per order
    (1704067200 + i * 3607)::BIGINT AS ordered_at_epoch_s,
    -- not yet shipped: every 9th order
    CASE WHEN i % 9 = 0 THEN NULL
         ELSE strftime(DATE '2024-01-01' + (i // 24 + 1 + i % 4)::INTEGER, '%Y-%m-%d') END AS ship_date,
    (i % 11 = 0) AS is_gift
  FROM range(1, ${ROWS + 1}) AS t(i)
  ORDER BY i
) TO '${output.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd)`;

await mkdir(fileURLToPath(new URL('./data/', import.meta.url)), { recursive: true });
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const connection = await instance.connect();
try {
  await connection.run(copy);
  const check = await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${output.replaceAll("'", "''")}')`);
  console.log(`wrote ${String(check.getRowObjects()[0]?.['n'])} rows to ${output}`);
} finally {
  connection.closeSync();
  instance.closeSync();
}
