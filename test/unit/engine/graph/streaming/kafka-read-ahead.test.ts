/**
 * A Kafka input reads the next batch's records while the engine processes the batch it staged
 * (read-ahead.ts): the read for batch n+1 starts before batch n commits, the stream never has two
 * reads at once, and in a round that goes on each range is read once. A read started ahead that
 * the next batch does not ask for is stopped, waited out and dropped, its failure with it; so is
 * one still waiting for records when the input closes, and the run's stop ends any read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OffsetRead, OffsetStream, OffsetStreamConnector, PartitionOffsets } from '../../../../../connectors/source.js';
import type { PositionRange, SourceRecord } from '../../../../../connectors/streaming-source.js';
import { createParquetSourceConnector } from '../../../../../connectors/parquet/parquet-source.js';
import { analyseGraph } from '../../../../../src/app/commands/validate.js';
import { NativeBackend } from '../../../../../src/backend/native/native-backend.js';
import { ReadAhead } from '../../../../../src/engine/graph/streaming/read-ahead.js';
import { kafka, pipeline } from '../../../../../src/pipeline/builder.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../../local-warehouse.js';

const LIMITS = { maxBytes: 1 << 20, idleMs: 1000 };

function range(first: number, next: number, partition = 0): PositionRange {
  return { topic: 'orders', partition, firstOffset: BigInt(first), nextOffset: BigInt(next) };
}

function record(partition: number, offset: number): SourceRecord<Record<string, unknown>> {
  return { topic: 'orders', partition, offset: BigInt(offset), timestampMs: 0, key: null, headers: [], value: { id: partition * 1000 + offset, amount: offset } } as unknown as SourceRecord<
    Record<string, unknown>
  >;
}

/** A stream over two partitions of `perPartition` records each that logs its reads and counts the ones in flight. */
function loggingStream(perPartition: number, beforeRead: () => Promise<void> = () => Promise.resolve()) {
  const log = { reads: [] as string[], inFlight: 0, mostInFlight: 0, failNext: false };
  const bounds: PartitionOffsets[] = [0, 1].map((partition) => ({ topic: 'orders', partition, low: 0n, high: BigInt(perPartition) }));
  const stream: OffsetStream = {
    bounds: () => Promise.resolve(bounds),
    async read(ranges) {
      log.inFlight++;
      log.mostInFlight = Math.max(log.mostInFlight, log.inFlight);
      log.reads.push(ranges.map((r) => `${r.partition}:${r.firstOffset}-${r.nextOffset}`).join(','));
      try {
        await beforeRead();
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (log.failNext) {
          log.failNext = false;
          throw new Error('broker gone');
        }
        const records = ranges.flatMap((r) => Array.from({ length: Number(r.nextOffset - r.firstOffset) }, (_, i) => record(r.partition, Number(r.firstOffset) + i)));
        return { records, deadLetters: [], skipped: 0, reached: ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: r.nextOffset })) } satisfies OffsetRead;
      } finally {
        log.inFlight--;
      }
    },
    close: () => Promise.resolve(),
  };
  return { stream, log };
}

describe('ReadAhead', () => {
  it('hands the read started ahead to a take of the same ranges, and reads anew (after it ends) for other ranges', async () => {
    const { stream, log } = loggingStream(10);
    const ahead = new ReadAhead();
    ahead.start(stream, [range(0, 4)], LIMITS);
    expect((await ahead.take(stream, [range(0, 4)], LIMITS)).records.map((r) => Number(r.offset))).toEqual([0, 1, 2, 3]);
    ahead.start(stream, [range(4, 8)], LIMITS);
    expect((await ahead.take(stream, [range(4, 6)], LIMITS)).records.map((r) => Number(r.offset))).toEqual([4, 5]);
    expect(log.reads).toEqual(['0:0-4', '0:4-8', '0:4-6']);
    expect(log.mostInFlight).toBe(1);
  });

  it('stops a read started ahead that is dropped or not asked for, instead of waiting out records that do not come; one that is taken runs on unless the run stops', async () => {
    // Records the end offsets promise that do not come: a read waits for them until its idle time, or until it is stopped.
    const signals: AbortSignal[] = [];
    const stream: OffsetStream = {
      bounds: () => Promise.resolve([]),
      read: (ranges, limits) => {
        if (limits.signal !== undefined) signals.push(limits.signal);
        const ended = { records: [], deadLetters: [], skipped: 0, reached: ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: r.firstOffset })) };
        if (limits.signal?.aborted === true) return Promise.resolve(ended);
        return new Promise<OffsetRead>((resolve) => {
          const idle = setTimeout(() => resolve(ended), limits.idleMs);
          limits.signal?.addEventListener('abort', () => {
            clearTimeout(idle);
            resolve(ended);
          });
        });
      },
      close: () => Promise.resolve(),
    };
    const waiting = { maxBytes: 1 << 20, idleMs: 60_000 };
    const within = async (promise: Promise<unknown>): Promise<number> => {
      const started = Date.now();
      await promise;
      return Date.now() - started;
    };
    const ahead = new ReadAhead();
    ahead.start(stream, [range(0, 4)], waiting);
    expect(await within(ahead.drop())).toBeLessThan(1_000);
    ahead.start(stream, [range(0, 4)], waiting);
    expect(await within(ahead.take(stream, [range(0, 2)], { ...waiting, idleMs: 10 }))).toBeLessThan(1_000);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
    ahead.start(stream, [range(0, 4)], { ...waiting, idleMs: 30 });
    await ahead.take(stream, [range(0, 4)], { ...waiting, idleMs: 30 });
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true, false]);
    // The run's stop ends the read being taken (and a new read) as well.
    const run = new AbortController();
    ahead.start(stream, [range(0, 4)], { ...waiting, signal: run.signal });
    const taking = ahead.take(stream, [range(0, 4)], { ...waiting, signal: run.signal });
    setTimeout(() => run.abort(), 20);
    expect(await within(taking)).toBeLessThan(1_000);
    expect(await within(ahead.take(stream, [range(4, 8)], { ...waiting, signal: run.signal }))).toBeLessThan(1_000);
  }, 10_000);

  it('drops a read started ahead that failed without a word; a take of it gives its error', async () => {
    const { stream, log } = loggingStream(10);
    const ahead = new ReadAhead();
    log.failNext = true;
    ahead.start(stream, [range(0, 4)], LIMITS);
    await ahead.drop();
    log.failNext = true;
    ahead.start(stream, [range(0, 4)], LIMITS);
    await expect(ahead.take(stream, [range(0, 4)], LIMITS)).rejects.toThrow('broker gone');
  });
});

let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'kafka-read-ahead' });
});
afterEach(() => warehouse.close());

it('a run reads batch n+1 while batch n is processed and committed, one read at a time, each range once', async () => {
  const { graph, problems } = await analyseGraph(
    pipeline('orders')
      .source('orders', kafka({ topic: 'orders', bootstrapServers: '127.0.0.1:9' }))
      .streamingTable('lake.orders', { sql: 'SELECT id, amount FROM STREAM(orders)', properties: { 'thund.stream.max-rows-per-batch': '6' } })
      .build(),
  );
  expect(problems).toEqual([]);
  // The table's snapshots when each read starts: a read ahead starts before the batch before it commits.
  const snapshotsAtRead: number[] = [];
  const snapshots = async (): Promise<number> =>
    (await warehouse.catalog.tableExists({ namespace: ['lake'], name: 'orders' })) ? (await warehouse.catalog.loadTable({ namespace: ['lake'], name: 'orders' })).metadata.snapshots.length : 0;
  const { stream, log } = loggingStream(9, async () => void snapshotsAtRead.push(await snapshots()));
  const streams: OffsetStreamConnector = { open: () => Promise.resolve(stream) };
  const result = await new NativeBackend({ catalog: warehouse.catalog, io: warehouse.io, sources: createParquetSourceConnector(), streams }).run(graph).result;
  expect(result.error).toBeUndefined();
  expect(result.flows.map((flow) => flow.counts.rowsWritten)).toEqual([18]);
  expect(log.reads).toEqual(['0:0-3,1:0-3', '0:3-6,1:3-6', '0:6-9,1:6-9']);
  expect(log.mostInFlight).toBe(1);
  expect(snapshotsAtRead).toEqual([0, 0, 1]);
  expect(await snapshots()).toBe(3);
});
