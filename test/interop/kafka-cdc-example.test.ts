/**
 * examples/kafka_cdc as the README runs it, against the test stack (its Iceberg REST fixture,
 * MinIO and Kafka; the example's addresses come from the environment): its producer writes the
 * Debezium change events of two files, `thund run` lands them, two more files, `thund run` again.
 * Only the topic and the namespace are renamed in a copy of the file. pyiceberg, through the same
 * REST catalog, reads the SCD1 table and the SCD2 history equal to the DuckDB reference queries
 * over the four files' events.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO, thund } from '../e2e/cli.js';
import { changeEvents, comparableRows, produce, referenceRows, scd1Reference, scd2Reference } from '../integration/kafka-pipelines/debezium-topic.js';
import { brokers, createTopic } from '../integration/kafka-support/sink-readback.js';
import { requireServiceEnv } from '../stack/service.js';
import { readWithPyiceberg } from './pyiceberg.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-kafka-cdc-example-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('lands the Debezium topic of examples/kafka_cdc as SCD1 and SCD2 tables that pyiceberg reads', async () => {
  const topic = await createTopic('thund-example-cdc', 3);
  const namespace = `example_${randomUUID().slice(0, 8)}`;
  const original = readFileSync(join(REPO, 'examples/kafka_cdc/pipeline.yaml'), 'utf8');
  const renamed = original.replace('topic: shop.public.customers', `topic: ${topic}`).replaceAll('lake.customers', `${namespace}.customers`);
  expect(renamed.split(namespace).length - 1).toBe(2);
  const spec = join(work, 'pipeline.yaml');
  writeFileSync(spec, renamed);
  const env = {
    THUND_REST_URI: requireServiceEnv('THUND_TEST_REST_URI'),
    THUND_S3_ENDPOINT: requireServiceEnv('THUND_TEST_S3_ENDPOINT'),
    AWS_ACCESS_KEY_ID: requireServiceEnv('THUND_TEST_S3_ACCESS_KEY'),
    AWS_SECRET_ACCESS_KEY: requireServiceEnv('THUND_TEST_S3_SECRET_KEY'),
    THUND_KAFKA_BROKERS: brokers.join(','),
  };
  for (const parts of [[0, 1], [2, 3]]) {
    for (const part of parts) await produce(topic, await changeEvents(part));
    const run = thund(['run', spec], work, env);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  }
  const read = (table: string) =>
    readWithPyiceberg({
      rest: { uri: env.THUND_REST_URI, s3Endpoint: env.THUND_S3_ENDPOINT, accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, region: requireServiceEnv('THUND_TEST_S3_REGION') },
      catalogName: 'rest',
      table: `${namespace}.${table}`,
    });
  const columnsOf = (rows: readonly Record<string, unknown>[], columns: readonly string[]): unknown[][] => rows.map((row) => columns.map((c) => row[c]));
  const all = [0, 1, 2, 3];
  const current = await read('customers');
  expect(comparableRows(columnsOf(current.rows, ['id', 'name', 'email', 'tier']))).toEqual(comparableRows(await referenceRows(scd1Reference(all))));
  const history = await read('customers_history');
  expect(comparableRows(columnsOf(history.rows, ['id', 'name', 'email', 'tier', '__START_AT', '__END_AT']))).toEqual(comparableRows(await referenceRows(scd2Reference(all))));
  expect(history.rows.length).toBeGreaterThan(current.rows.length);
}, 300_000);
