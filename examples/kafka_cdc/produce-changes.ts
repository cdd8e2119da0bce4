/**
 * Produces the change events of examples/cdc_scd2 (200 events of 40 customers: creates, updates,
 * deletes, re-creates, one in ten one file late) to a Kafka topic as Debezium writes them with the
 * JSON converter: keyed by id, every fourth envelope wrapped as `{schema, payload}` (schemas on),
 * and a tombstone (null value) after each delete. The topic is created (3 partitions) if missing.
 *
 *   THUND_KAFKA_BROKERS=127.0.0.1:9092 npx tsx examples/kafka_cdc/produce-changes.ts [--part 0..3] [--topic shop.public.customers]
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { Kafka, logLevel } from 'kafkajs';

const CHANGES = fileURLToPath(new URL('../cdc_scd2/data/changes/', import.meta.url));

export interface ChangeRecord {
  readonly key: string;
  readonly value: string | null;
}

/** The events of file `part` (0..3) of examples/cdc_scd2 in log order, as Kafka records. */
export async function debeziumRecords(part: number): Promise<ChangeRecord[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT to_json({'before': before, 'after': after, 'source': source, 'op': op, 'ts_ms': ts_ms})::VARCHAR AS envelope,
              coalesce(after.id, before.id)::VARCHAR AS id, op, source.lsn::INTEGER AS lsn
       FROM read_parquet('${CHANGES}part-${part}.parquet') ORDER BY source.lsn`,
    );
    const records: ChangeRecord[] = [];
    for (const [envelope, id, op, lsn] of reader.getRows() as [string, string, string, number][]) {
      records.push({ key: id, value: lsn % 4 === 0 ? `{"schema":{"type":"struct","optional":false},"payload":${envelope}}` : envelope });
      if (op === 'd') records.push({ key: id, value: null });
    }
    return records;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { part: { type: 'string' }, topic: { type: 'string', default: 'shop.public.customers' } } });
  const brokers = (process.env['THUND_KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',');
  const kafka = new Kafka({ clientId: 'thund-example-producer', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  if (!(await admin.listTopics()).includes(values.topic)) await admin.createTopics({ topics: [{ topic: values.topic, numPartitions: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const parts = values.part === undefined ? [0, 1, 2, 3] : [Number(values.part)];
  const producer = kafka.producer();
  await producer.connect();
  let count = 0;
  for (const part of parts) {
    const records = await debeziumRecords(part);
    await producer.send({ topic: values.topic, messages: records });
    count += records.length;
  }
  await producer.disconnect();
  console.log(`produced ${count} change records (files ${parts.join(', ')}) to ${values.topic}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
