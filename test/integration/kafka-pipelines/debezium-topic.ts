/**
 * For the tests of pipelines reading Kafka: the Debezium change events of examples/cdc_scd2 as
 * examples/kafka_cdc produces them (keyed by id, tombstones after deletes, some envelopes wrapped
 * as the JSON converter does with schemas on), a producer for the test stack's broker, and the
 * DuckDB reference queries over the same events for SCD1 and SCD2.
 */
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { debeziumRecords } from '../../../examples/kafka_cdc/produce-changes.js';
import { scd2HistoryOf } from '../../support/scd2-reference.js';
import { brokers } from '../kafka-support/sink-readback.js';

export const EXAMPLE_CHANGES = fileURLToPath(new URL('../../../examples/cdc_scd2/data/changes/', import.meta.url));
const kafka = new Kafka({ clientId: 'thund-it-kafka-pipelines', brokers, logLevel: logLevel.NOTHING });

/** The example's events of file `part` in file order, as Debezium JSON values keyed by id (examples/kafka_cdc's producer). */
export const changeEvents = (part: number): Promise<{ key: string; value: string | null }[]> => debeziumRecords(part);

/** Produces to the test stack's broker, or to the broker of `via`. */
export async function produce(
  topic: string,
  records: readonly { key: string | null; value: string | null; partition?: number; timestamp?: number; headers?: Record<string, string | string[]> }[],
  via: Kafka = kafka,
): Promise<void> {
  const producer = via.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 500) {
      await producer.send({
        topic,
        messages: records.slice(i, i + 500).map((r) => ({
          key: r.key,
          value: r.value,
          ...(r.partition === undefined ? {} : { partition: r.partition }),
          ...(r.timestamp === undefined ? {} : { timestamp: String(r.timestamp) }),
          ...(r.headers === undefined ? {} : { headers: r.headers }),
        })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

const EVENTS = (parts: readonly number[]): string =>
  `(SELECT * FROM read_parquet([${parts.map((p) => quoteLiteral(`${EXAMPLE_CHANGES}part-${p}.parquet`)).join(', ')}]))`;

/** Current state of every live customer after these files' events: the last event by lsn, unless a delete. */
export const scd1Reference = (parts: readonly number[]): string => `
  SELECT after.id AS id, after.name AS name, after.email AS email, after.tier AS tier FROM (
    SELECT *, row_number() OVER (PARTITION BY coalesce(after.id, before.id) ORDER BY source.lsn DESC) AS newest FROM ${EVENTS(parts)})
  WHERE newest = 1 AND op <> 'd' ORDER BY id`;

/** The SCD2 history of these files' events. */
export const scd2Reference = (parts: readonly number[]): string => scd2HistoryOf(EVENTS(parts));

export async function referenceRows(sql: string): Promise<unknown[][]> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return (await session.queryJson(sql)).map((row) => Object.values(row));
  } finally {
    session.close();
  }
}

/**
 * Rows of the customers tables in a form a reader's and the reference's agree on: numbers as
 * numbers (BIGINT comes back as text from DuckDB, as a number from pyiceberg or Trino), sorted by
 * id, then by `__START_AT` (the fifth column of the SCD2 history).
 */
export function comparableRows(rows: readonly (readonly unknown[])[]): unknown[][] {
  return rows
    .map((row) => row.map((v) => (v === null || v === undefined || (typeof v === 'string' && !/^-?\d+$/.test(v)) ? (v ?? null) : Number(v))))
    .sort((a, b) => Number(a[0]) - Number(b[0]) || Number(a[4] ?? 0) - Number(b[4] ?? 0));
}
