/**
 * Issue 7's landing test at full size: 1M keyed JSON records over 6 partitions, produced while
 * `thund serve` (the built CLI) consumes them into an Iceberg table through the stack's REST
 * catalog with data on MinIO. The table is read back through our own scan with DuckDB: exactly
 * 1M rows, every (partition, offset) once, the produced key set (a checksum of the sorted keys),
 * each row's value intact beside its coordinates, and the positions at the end of every partition.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Message, Producer } from 'kafkajs';
import { EoKafka, restPipelineFile, tableName, unique, waitForPositions } from './kafka-eo-support/eo-stack.js';
import { expectedKeys, keyChecksum, recordValue } from './kafka-eo-support/produce.js';
import { readTable } from './kafka-eo-support/landed-rows.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';

const TOTAL = 1_000_000;
const PARTITIONS = 6;
/** Per partition and send: one record batch, kept under the broker's 1 MB message.max.bytes. */
const RECORDS_PER_SEND = 3_000;

const kafka = new EoKafka();
const started: ServeProcess[] = [];

afterAll(async () => {
  for (const p of started) p.kill('SIGKILL');
  await kafka.close();
});

/** Record i (key k-i) goes to partition i mod 6; each partition is produced in key order by its own sender. */
async function produceParallel(producer: Producer, topic: string): Promise<void> {
  await Promise.all(
    Array.from({ length: PARTITIONS }, async (_, partition) => {
      for (let first = partition; first < TOTAL; first += RECORDS_PER_SEND * PARTITIONS) {
        const messages: Message[] = [];
        for (let i = first; i < Math.min(TOTAL, first + RECORDS_PER_SEND * PARTITIONS); i += PARTITIONS) messages.push({ partition, key: `k-${i}`, value: recordValue(i) });
        await producer.send({ topic, messages, acks: -1 });
      }
    }),
  );
}

const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1);

describe('thund serve: 1M records (REST catalog, MinIO)', () => {
  it('lands 1M records of 6 partitions exactly once: count, distinct coordinates, key checksum', async () => {
    const pipeline = restPipelineFile();
    const topic = unique('eo-million');
    const table = { namespace: [unique('eo')], name: 'million' };
    await kafka.createTopic(topic, PARTITIONS);
    const serve = await ServeProcess.start({ pipeline, brokers: kafka.brokers, topic, group: unique('g'), table: tableName(table), commitRecords: 100_000, commitIntervalMs: 5_000 });
    started.push(serve);
    let exit: Awaited<typeof serve.exited> | undefined;
    void serve.exited.then((e) => (exit = e));
    const begun = Date.now();
    // Produced while serve consumes, as in production; serve keeps pace, so the run takes about as long as producing.
    const produced = produceParallel(await kafka.producer(), topic).then(() => console.log(`produced ${TOTAL} records in ${seconds(begun)} s`));
    await Promise.all([produced, serve.waitReady(60_000)]);
    await waitForPositions(pipeline, table, TOTAL, 600_000, () => {
      if (exit !== undefined) throw new Error(`serve exited (${JSON.stringify(exit)}) before landing everything: ${serve.stderr}`);
    });
    console.log(`landed ${TOTAL} records ${seconds(begun)} s after producing began (${serve.committedBatches()} batches)`);
    const metrics = (await serve.get('/metrics')).body;
    expect(metrics).toMatch(new RegExp(`^thund_flow_rows_written_total\\{flow="${tableName(table)}"\\} ${TOTAL}$`, 'm'));
    for (let partition = 0; partition < PARTITIONS; partition++) {
      expect(metrics).toMatch(new RegExp(`^thund_source_lag_records\\{source="kafka_records",flow="[^"]+",topic="${topic}",partition="${partition}"\\} 0$`, 'm'));
    }
    serve.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });

    const read = Date.now();
    const landed = await readTable(
      pipeline,
      table,
      [
        'count(*) AS n',
        'count(DISTINCT _kafka_key) AS distinct_keys',
        'count(DISTINCT (_kafka_partition, _kafka_offset)) AS distinct_coordinates',
        // keyChecksum's digest computed in DuckDB: sha256 over the sorted keys, one per line.
        "sha256(string_agg(_kafka_key, chr(10) ORDER BY _kafka_key) || chr(10)) AS key_checksum",
        "count(*) FILTER (WHERE _kafka_key <> 'k-' || id OR _kafka_partition <> id % 6 OR name <> 'customer-' || id) AS mismatched",
        'list(DISTINCT _kafka_partition ORDER BY _kafka_partition) AS partitions',
        'max(_kafka_offset) AS max_offset',
      ].join(', '),
    );
    console.log(`read back and checked in ${seconds(read)} s`);
    const [summary] = landed.rows;
    expect(landed.rows).toHaveLength(1);
    expect(Number(summary?.['n'])).toBe(TOTAL);
    expect(Number(summary?.['distinct_keys'])).toBe(TOTAL);
    expect(Number(summary?.['distinct_coordinates'])).toBe(TOTAL);
    expect(summary?.['key_checksum']).toBe(keyChecksum(expectedKeys(0, TOTAL)));
    expect(Number(summary?.['mismatched'])).toBe(0);
    expect((summary?.['partitions'] as unknown[]).map(Number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Number(summary?.['max_offset'])).toBe(Math.ceil(TOTAL / PARTITIONS) - 1);
    const perPartition = landed.positions.list.map((p) => [p.partition, p.nextOffset]).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(perPartition).toEqual([0, 1, 2, 3, 4, 5].map((p) => [p, BigInt(Math.ceil((TOTAL - p) / PARTITIONS))]));
  }, 900_000);
});
