import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decodeRecordBatch, type KafkaJsFetchDecoder } from '../../../connectors/kafka/kafkajs-record-batch-decoder.js';

// kafkajs's own encoder, decoder and Decoder class: the stand-in must give what kafkajs's decoder gives.
const require = createRequire(import.meta.url);
type Encoded = { buffer: Buffer };
type RecordInput = { offsetDelta?: number; timestampDelta?: number | bigint; key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | Buffer[]> };
const { RecordBatch: encodeBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as { RecordBatch: (batch: Record<string, unknown>) => Promise<Encoded> };
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: RecordInput) => Encoded;
const kafkaJsDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (decoder: KafkaJsFetchDecoder) => Promise<unknown>;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => KafkaJsFetchDecoder;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(value: string | number): unknown };
const { Types } = require('kafkajs/src/protocol/message/compression/index.js') as { Types: { GZIP: number } };

const ATTRIBUTES_AT = 12 + 9;

async function batchBytes(options: { records: RecordInput[]; firstOffset?: string; firstTimestamp?: number; compression?: number; transactional?: boolean }): Promise<Buffer> {
  const encoded = await encodeBatch({
    firstOffset: Long.fromValue(options.firstOffset ?? '0'),
    firstTimestamp: options.firstTimestamp ?? 1_765_000_000_000,
    maxTimestamp: 1_765_000_009_999,
    lastOffsetDelta: options.records.length - 1,
    transactional: options.transactional ?? false,
    producerId: Long.fromValue('4242'),
    producerEpoch: 3,
    firstSequence: 7,
    ...(options.compression === undefined ? {} : { compression: options.compression }),
    records: options.records.map((record, index) => encodeRecord({ offsetDelta: index, ...record })),
  });
  return encoded.buffer;
}

/** Both decoders over the same bytes, each from its own Decoder; with where each left its decoder. */
async function bothDecode(bytes: Buffer): Promise<{ ours: unknown; theirs: unknown; oursAt: number; theirsAt: number }> {
  const theirDecoder = new Decoder(bytes);
  const ourDecoder = new Decoder(bytes);
  const theirs = await kafkaJsDecoder(theirDecoder);
  const ours = await decodeRecordBatch(ourDecoder);
  return { ours, theirs, oursAt: ourDecoder.offset, theirsAt: theirDecoder.offset };
}

const records = (count: number): RecordInput[] =>
  Array.from({ length: count }, (_, i) => ({ timestampDelta: i * 3, key: i % 4 === 0 ? null : Buffer.from(`k-${i}`), value: i % 5 === 0 ? null : Buffer.from(JSON.stringify({ id: i, note: 'é'.repeat(i) })) }));

describe("the record batch decoder kafkajs's consumer is given in the consumer's worker", () => {
  it('gives the records, batch context and decoder position kafkajs gives, with keys, tombstones and empty values', async () => {
    const bytes = await batchBytes({ records: [...records(40), { key: Buffer.alloc(0), value: Buffer.alloc(0) }] });
    const { ours, theirs, oursAt, theirsAt } = await bothDecode(bytes);
    expect(ours).toEqual(theirs);
    expect(oursAt).toBe(theirsAt);
    expect((ours as { records: unknown[] }).records).toHaveLength(41);
  });

  it('gives the same headers, one key given twice as an array in order', async () => {
    const bytes = await batchBytes({ records: [{ key: null, value: Buffer.from('{}'), headers: { trace: Buffer.from('a'), twice: [Buffer.from('1'), Buffer.from('2')], 'ünï': Buffer.from('x') } }] });
    const { ours, theirs } = await bothDecode(bytes);
    expect(ours).toEqual(theirs);
    const [record] = (ours as { records: Array<{ headers: Record<string, unknown> }> }).records;
    expect(record?.headers['twice']).toEqual([Buffer.from('1'), Buffer.from('2')]);
  });

  it('decompresses gzip batches as kafkajs does', async () => {
    const bytes = await batchBytes({ records: records(25), compression: Types.GZIP });
    const { ours, theirs } = await bothDecode(bytes);
    expect(ours).toEqual(theirs);
    expect((ours as { records: unknown[] }).records).toHaveLength(25);
  });

  it('adds offsets beyond 2^53 and large or negative timestamp deltas exactly', async () => {
    const bytes = await batchBytes({
      firstOffset: '9007199254740990',
      firstTimestamp: 1_765_000_000_000,
      records: [
        { timestampDelta: -5, key: null, value: Buffer.from('{}') },
        { timestampDelta: 2 ** 50, key: null, value: Buffer.from('{}') },
        { timestampDelta: -(2 ** 52), key: null, value: Buffer.from('{}') },
        { timestampDelta: 7, key: null, value: Buffer.from('{}') },
      ],
    });
    const { ours, theirs } = await bothDecode(bytes);
    expect(ours).toEqual(theirs);
    const offsets = (ours as { records: Array<{ offset: string; timestamp: string }> }).records.map((r) => r.offset);
    expect(offsets).toEqual(['9007199254740990', '9007199254740991', '9007199254740992', '9007199254740993']);
    const timestamps = (ours as { records: Array<{ timestamp: string }> }).records.map((r) => r.timestamp);
    expect(timestamps).toEqual([String(1_765_000_000_000 - 5), (1_765_000_000_000n + 2n ** 50n).toString(), (1_765_000_000_000n - 2n ** 52n).toString(), String(1_765_000_000_007)]);
  });

  it('reads control, transactional and log-append-time batches as kafkajs does', async () => {
    for (const flags of [0x20 | 0x10, 0x10, 0x08]) {
      const bytes = await batchBytes({ records: records(3), transactional: true });
      bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES_AT) | flags, ATTRIBUTES_AT);
      const { ours, theirs } = await bothDecode(bytes);
      expect(ours).toEqual(theirs);
    }
  });

  it('throws the partial-message error kafkajs breaks on for a batch cut short', async () => {
    const bytes = await batchBytes({ records: records(10) });
    const cut = bytes.subarray(0, bytes.length - 7);
    await expect(kafkaJsDecoder(new Decoder(cut))).rejects.toMatchObject({ name: 'KafkaJSPartialMessageError' });
    await expect(decodeRecordBatch(new Decoder(cut))).rejects.toMatchObject({ name: 'KafkaJSPartialMessageError' });
  });
});
