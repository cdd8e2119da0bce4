/**
 * What `thund serve` lands from Kafka is read back by Spark (Iceberg's own Spark runtime) and
 * pyiceberg exactly: every produced record once, with its value fields and its Kafka coordinates
 * (topic, partition, offset, key), under the schema serve created.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedPipelineFile, EoKafka, unique, waitForPositions } from '../integration/kafka-eo-support/eo-stack.js';
import { produceRange, recordValue } from '../integration/kafka-eo-support/produce.js';
import { ServeProcess } from '../integration/kafka-eo-support/serve-process.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { localCatalog } from './quickstart-expected.js';
import type { ReaderTable } from './read-table-output.js';
import { readWithSpark } from './spark.js';

const RECORDS = 3_000;
const PARTITIONS = 3;
const TABLE = { namespace: ['lake'], name: 'events' };

const kafka = new EoKafka();
const topic = unique('serve-readers');
let pipeline: string;

/** Record i as produce.ts sends it: partition i mod 3, offset i div 3, key k-i. */
function expectedRows(): Array<Record<string, unknown>> {
  return Array.from({ length: RECORDS }, (_, i) => {
    const value = JSON.parse(recordValue(i)) as Record<string, unknown>;
    return { ...value, _kafka_topic: topic, _kafka_partition: i % PARTITIONS, _kafka_offset: Math.floor(i / PARTITIONS), _kafka_key: `k-${i}` };
  });
}

function landedRows(table: ReaderTable): Array<Record<string, unknown>> {
  return table.rows
    .map((row) => ({ id: row['id'], name: row['name'], amount: row['amount'], city: row['city'], note: row['note'], _kafka_topic: row['_kafka_topic'], _kafka_partition: row['_kafka_partition'], _kafka_offset: row['_kafka_offset'], _kafka_key: row['_kafka_key'] }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

beforeAll(async () => {
  await kafka.createTopic(topic, PARTITIONS);
  await produceRange(await kafka.producer(), topic, PARTITIONS, 0, RECORDS, 1_000);
  pipeline = embeddedPipelineFile();
  const serve = await ServeProcess.start({ pipeline, brokers: kafka.brokers, topic, group: unique('g'), table: 'lake.events', commitRecords: 1_000, commitIntervalMs: 2_000, duckdbThreads: 1 });
  try {
    await serve.waitReady(60_000);
    await waitForPositions(pipeline, TABLE, RECORDS, 120_000);
  } finally {
    serve.kill('SIGTERM');
    await serve.exited;
  }
}, 240_000);

afterAll(async () => {
  await kafka.close();
  rmSync(dirname(pipeline), { recursive: true, force: true });
});

const readArgs = (): ReturnType<typeof localCatalog> => localCatalog(join(dirname(pipeline), 'warehouse'), { table: 'lake.events' });

describe('a table thund serve landed from Kafka', () => {
  it('is read by pyiceberg with every record once, its values and coordinates', async () => {
    const table = await readWithPyiceberg(readArgs());
    expect(table.rowCount).toBe(RECORDS);
    expect(landedRows(table)).toEqual(expectedRows());
  }, 300_000);

  it('is read by Spark with every record once, its values and coordinates', async () => {
    const table = await readWithSpark(readArgs());
    expect(table.rowCount).toBe(RECORDS);
    expect(landedRows(table)).toEqual(expectedRows());
  }, 600_000);
});
