/**
 * Confluent Avro values decoded in the consumer's worker into their staged lines
 * (avro-line-packer.ts): a batch packed with those lines, unpacked and staged in DuckDB as a
 * pipeline stages it, lands the rows of every Avro type exactly (int64 beyond 2^53, NaN, unions
 * bare and wrapped, logical types as text), the same rows as the batch decoded on the main thread;
 * a value whose bytes do not match its schema, an unknown schema id and a reserved field get no
 * line and become the main thread's dead letters or rejects, naming the record.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Batch, KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfluentAvroDecoder } from '../../../connectors/kafka/avro-decoder.js';
import { AvroLineStager } from '../../../connectors/kafka/avro-line-packer.js';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { JsonSafeDecoder } from '../../../connectors/kafka/json-safe-values.js';
import { packBatch, transferables, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import { SchemaRegistryClient } from '../../../connectors/kafka/schema-registry-client.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { reservedFieldOf, stagedLines, stageRecords, type JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import { AVRO_LOGICAL, avroDecimal, AvroWire, decimalBytes, nullable, recordSchema } from './avro-wire.js';
import { decodedRecord } from './records.js';

const EVERY_TYPE = recordSchema('shop.Every', {
  big: 'long',
  small: 'int',
  ratio: 'float',
  score: 'double',
  flag: 'boolean',
  text: 'string',
  blob: 'bytes',
  code: { type: 'fixed', name: 'Code', size: 3 },
  tier: { type: 'enum', name: 'Tier', symbols: ['BRONZE', 'GOLD'] },
  counts: { type: 'array', items: 'int' },
  tags: { type: 'map', values: 'string' },
  address: recordSchema('Address', { city: 'string', zip: nullable('int') }),
  note: nullable('string'),
  either: ['null', 'int', 'string'],
  wrapped: ['int', 'long'],
  boxed: ['int', 'float'],
  at: AVRO_LOGICAL.timestampMicros,
  day: AVRO_LOGICAL.date,
  clock: AVRO_LOGICAL.timeMillis,
  price: avroDecimal(20, 2),
  ref: { type: 'fixed', name: 'Uuid16', size: 16, logicalType: 'uuid' },
});
const RESERVED = recordSchema('shop.Reserved', { id: 'long', _kafka_offset: 'long' });

// 2024-01-02T03:04:05.123456Z
const AT = 19_724 * 86_400_000_000 + 11_045_123_456;
const BIG = 2n ** 62n + 1n;

function every(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    big: 0,
    small: -i,
    ratio: 0.5,
    score: i === 1 ? Number.NaN : 1.25 * i,
    flag: i % 2 === 0,
    text: i === 1 ? 'café "quoted"\nline' : `text-${i}`,
    blob: Buffer.from([0, 255, i]),
    code: Buffer.from('abc'),
    tier: i === 1 ? 'GOLD' : 'BRONZE',
    counts: [i, i + 1],
    tags: { b: 'x', a: `y${i}` },
    address: { city: 'Lisbon', zip: i === 1 ? null : 1000 + i },
    note: i === 1 ? null : `n${i}`,
    either: i === 1 ? 'one' : i,
    wrapped: { long: i },
    boxed: { float: 0.25 },
    at: AT + i,
    day: 19_724 + i,
    clock: 11_045_123,
    price: decimalBytes(-123_456_789n + BigInt(i)),
    ref: Buffer.from('f79c3e09677c4bbda4793f349cb785e7', 'hex'),
    ...overrides,
  };
}

const wire = new AvroWire(new Map([[31, { schema: EVERY_TYPE }], [32, { schema: RESERVED }]]));
let url: string;
let tempDir: string;

beforeAll(async () => {
  url = await wire.registry.start();
  tempDir = await mkdtemp(join(tmpdir(), 'thund-avro-lines-'));
});
afterAll(async () => {
  await wire.registry.stop();
  await rm(tempDir, { recursive: true, force: true });
});

/** `big` (the first field, a long written as 0) replaced by `value` as a zigzag varint. */
function withBig(value: bigint, payload: Buffer): Buffer {
  let zigzag = value >= 0n ? value << 1n : (-value << 1n) - 1n;
  const bytes: number[] = [];
  while (zigzag >= 0x80n) {
    bytes.push(Number(zigzag & 0x7fn) | 0x80);
    zigzag >>= 7n;
  }
  bytes.push(Number(zigzag));
  return encodeConfluentWire(31, Buffer.concat([Buffer.from(bytes), payload.subarray(1)]));
}

const good = (i: number, big: bigint): Buffer => withBig(big, wire.payload(31, every(i)));
const values: Buffer[] = [
  good(1, BIG),
  good(2, -BIG),
  // Bytes cut short: the schema reads past them.
  encodeConfluentWire(31, wire.payload(31, every(3)).subarray(0, 20)),
  encodeConfluentWire(99, wire.payload(31, every(4))),
  wire.encode(32, { id: 5, _kafka_offset: 1 }),
  good(6, 7n),
];
const batchOf = (list: readonly Buffer[]): Batch =>
  ({
    topic: 'events',
    partition: 3,
    fetchedOffset: '100',
    messages: list.map((value, i) => ({ offset: String(100 + i), timestamp: String(1_764_563_000_000 + i), key: Buffer.from(`k-${i}`), value, headers: i === 0 ? { trace: Buffer.from('t') } : {}, attributes: 0 }) as KafkaMessage),
    lastOffset: () => String(99 + list.length),
  }) as unknown as Batch;
const batch = batchOf(values);

/** The pipeline's decoder for value_format avro. */
const pipelineDecoder = (): JsonSafeDecoder => new JsonSafeDecoder(new ConfluentAvroDecoder(new SchemaRegistryClient({ url })));

/** The batch packed (with the worker's Avro lines or without), moved as the worker posts it, and decoded on the main thread. */
async function fetched(withLines: boolean, packing: Batch = batch) {
  const lines = withLines ? await new AvroLineStager({ url }).linesOf(packing) : undefined;
  const packed = packBatch(packing, 0, lines);
  const raws = unpackBatch(structuredClone(packed, { transfer: transferables(packed) })).records;
  const decoder = pipelineDecoder();
  await decoder.prepare(raws);
  return { raws, decoded: decodeRecords(decoder, raws), columns: decoder.columnTypes(raws.map((r) => r.value)) };
}

async function stagedRows(records: readonly JsonRecord[], columns: ReadonlyMap<string, string>): Promise<Array<Record<string, unknown>>> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    await stageRecords({ session, records, table: 'batch', tempDir, columns, readOtherFields: true });
    return await session.queryJson(
      `SELECT _kafka_offset::VARCHAR AS "offset", _kafka_key AS "key", _kafka_headers::VARCHAR AS headers, big::VARCHAR AS big, small, ratio, score, flag, text, blob, code, tier,
         counts::VARCHAR AS counts, tags::VARCHAR AS tags, address::VARCHAR AS address, note, either::VARCHAR AS either, wrapped::VARCHAR AS wrapped, boxed::VARCHAR AS boxed,
         epoch_us("at")::VARCHAR AS "at", day::VARCHAR AS day, clock::VARCHAR AS clock, price::VARCHAR AS price, ref
       FROM batch ORDER BY _kafka_offset`,
    );
  } finally {
    session.close();
  }
}

describe('Avro values decoded into staged lines in the worker', () => {
  it('land every Avro type exactly, as the same batch decoded on the main thread lands', async () => {
    const withLines = await fetched(true);
    expect(withLines.raws.map((r) => r.stagedLine !== undefined)).toEqual([true, true, false, false, false, true]);
    // The values stay as fetched, for dead letters and column types.
    expect(withLines.raws.map((r) => r.value)).toEqual(values);
    const records = withLines.decoded.records.filter((r) => reservedFieldOf(r.value) === undefined) as JsonRecord[];
    expect(records.map((r) => r.offset)).toEqual([100n, 101n, 105n]);
    const rows = await stagedRows(records, withLines.columns);
    expect(rows[0]).toEqual({
      offset: '100',
      key: 'k-0',
      headers: '[{\'key\': trace, \'value\': t}]',
      big: BIG.toString(),
      small: -1,
      ratio: 0.5,
      score: null,
      flag: false,
      text: 'café "quoted"\nline',
      blob: Buffer.from([0, 255, 1]).toString('base64'),
      code: Buffer.from('abc').toString('base64'),
      tier: 'GOLD',
      counts: '[1, 2]',
      tags: '{b=x, a=y1}',
      address: "{'city': Lisbon, 'zip': NULL}",
      note: null,
      // int and string values in one column: DuckDB reads it as JSON.
      either: '"one"',
      // avsc tells a bigint long from an int by value, so this union decodes bare.
      wrapped: '1',
      // int and float are both numbers: avsc wraps the branch.
      boxed: "{'float': 0.25}",
      at: String(AT + 1),
      day: '2024-01-03',
      clock: '03:04:05.123',
      price: '-1234567.88',
      ref: 'f79c3e09-677c-4bbd-a479-3f349cb785e7',
    });
    expect(rows[1]).toMatchObject({ big: (-BIG).toString(), score: 2.5, text: 'text-2', address: "{'city': Lisbon, 'zip': 1002}", note: 'n2', either: '2' });
    expect(rows[2]).toMatchObject({ offset: '105', big: '7', flag: true });
    // The main thread alone, without the worker's lines: the same rows.
    const bare = await fetched(false);
    expect(bare.raws.every((r) => r.stagedLine === undefined)).toBe(true);
    expect(await stagedRows(bare.decoded.records.filter((r) => reservedFieldOf(r.value) === undefined) as JsonRecord[], bare.columns)).toEqual(rows);
  });

  it('are, byte for byte, the lines the engine writes for the values the main thread decodes, longs of every varint length included', async () => {
    const edges = [0n, -1n, 63n, -64n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 48n - 1n, -(2n ** 48n), 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 62n, -(2n ** 62n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)];
    const { decoded } = await fetched(true, batchOf([good(1, 5n), ...edges.map((big, i) => good(i + 2, big))]));
    const records = decoded.records as JsonRecord[];
    expect(records.every((r) => r.stagedLine !== undefined)).toBe(true);
    const fromWorker = Buffer.concat(stagedLines(records).chunks).toString('utf8');
    expect(fromWorker).toBe(Buffer.concat(stagedLines(records.map((r) => decodedRecord(r, r.value))).chunks).toString('utf8'));
    expect(fromWorker).toContain('"big":"-9223372036854775808"');
    expect(fromWorker).toContain('"big":281474976710655,');
  });

  it('leave values that do not decode to the main thread, which dead-letters them naming the record', async () => {
    const { decoded } = await fetched(true);
    expect(decoded.deadLetters.map((d) => [d.topic, d.partition, d.offset, d.code, d.reason])).toEqual([
      ['events', 3, 102n, 'DECODE_FAILED', expect.stringMatching(/^bytes do not match Avro schema id 31: /)],
      ['events', 3, 103n, 'DECODE_FAILED', 'schema id 99 is not in the schema registry'],
    ]);
    expect(decoded.deadLetters[0]?.value).toEqual(values[2]);
    // A field named like a coordinate column: decoded on the main thread, where the engine rejects it.
    const reserved = decoded.records.find((r) => r.offset === 104n);
    expect(reserved?.stagedLine).toBeUndefined();
    expect(reservedFieldOf(reserved?.value ?? {})).toBe('_kafka_offset');
  });

  it('read a value from its line only when asked, decoding it as the main thread would', async () => {
    const { decoded } = await fetched(true);
    const first = decoded.records[0];
    expect(first?.raw).toEqual(values[0]);
    expect(first?.value).toMatchObject({ big: BIG.toString(), text: 'café "quoted"\nline', at: '2024-01-02T03:04:05.123457+00:00' });
    expect(first?.fieldNames).toEqual(EVERY_TYPE.fields.map((f) => f.name));
  });

  it('write no lines when the registry fails, so the main thread reports it', async () => {
    wire.registry.failing.set(31, 503);
    try {
      expect(await new AvroLineStager({ url }).linesOf(batch)).toBeUndefined();
    } finally {
      wire.registry.failing.delete(31);
    }
  });
});
