/**
 * Writes the input of examples/cdc_scd2/pipeline.yaml: Debezium-style change events of a
 * `customers` table (op c|u|d, before and after row images, source.lsn, ts_ms) as four Parquet
 * files, one per micro-batch. Deterministic: every value is arithmetic on the event number.
 *
 * 40 customers are created (lsn 1-40), then 160 events update or (every 9th) delete one of them;
 * a deleted customer is created again by its next event. One event in ten is delivered one file
 * late, so the engine has to place it into history by its lsn.
 *
 *   npx tsx examples/cdc_scd2/make-data.ts
 */
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const folder = fileURLToPath(new URL('./data/changes/', import.meta.url));
const FILES = 4;
const EVENTS = 200;
const CUSTOMERS = 40;

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
// Each event's customer, the op it would have, and whether the customer is live before it.
await connection.run(
  `CREATE TABLE plan AS
   SELECT lsn, id, planned,
          coalesce(lag(planned) OVER (PARTITION BY id ORDER BY lsn), 'none') AS previous
   FROM (SELECT i AS lsn, CASE WHEN i <= ${CUSTOMERS} THEN i ELSE (i * 13) % ${CUSTOMERS} + 1 END AS id,
                CASE WHEN i <= ${CUSTOMERS} THEN 'c' WHEN i % 9 = 0 THEN 'd' ELSE 'u' END AS planned
         FROM range(1, ${EVENTS + 1}) t(i))`,
);
const image = (lsn: string): string =>
  `{'id': id::BIGINT, 'name': 'customer-' || id, 'email': 'c' || id || '-v' || ${lsn} || '@example.com', 'tier': ['bronze', 'silver', 'gold'][${lsn} % 3 + 1]}`;
await connection.run(
  `CREATE TABLE events AS
   SELECT op,
          CASE WHEN op = 'c' THEN NULL ELSE ${image('prev_lsn')} END AS before,
          CASE WHEN op = 'd' THEN NULL ELSE ${image('lsn')} END AS after,
          {'connector': 'postgresql', 'db': 'shop', 'table': 'customers', 'lsn': lsn::BIGINT} AS source,
          (1767225600000 + lsn * 1000)::BIGINT AS ts_ms,
          least(${FILES - 1}, (lsn - 1) * ${FILES} // ${EVENTS} + CASE WHEN lsn % 10 = 5 THEN 1 ELSE 0 END) AS file
   FROM (SELECT lsn, id, coalesce(lag(lsn) OVER (PARTITION BY id ORDER BY lsn), lsn) AS prev_lsn,
                -- after a delete the next event creates the customer again
                CASE WHEN previous = 'd' THEN 'c' WHEN planned = 'c' THEN 'c' ELSE planned END AS op
         FROM plan)`,
);
await rm(folder, { recursive: true, force: true });
await mkdir(folder, { recursive: true });
for (let file = 0; file < FILES; file += 1) {
  await connection.run(
    `COPY (SELECT * EXCLUDE (file) FROM events WHERE file = ${file} ORDER BY source.lsn) TO '${folder}part-${file}.parquet' (FORMAT parquet)`,
  );
}
connection.closeSync();
