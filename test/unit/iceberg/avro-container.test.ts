import { inflateRawSync } from 'node:zlib';
import avsc from 'avsc';
import { describe, expect, it } from 'vitest';
import { readContainer, writeContainer } from '../../../src/iceberg/avro/container.js';
import type { AvroSchema } from '../../../src/iceberg/avro/container.js';
import { snappyDecompress } from '../../../src/iceberg/avro/snappy.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { parseHeader } from './avro-header.js';

const SCHEMA: AvroSchema = {
  type: 'record',
  name: 'thing',
  fields: [
    { name: 'id', type: 'long', 'field-id': 1 },
    { name: 'ts', type: ['null', { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true }], default: null, 'field-id': 2 },
    { name: 'tags', type: { type: 'array', items: 'string', 'element-id': 4 }, 'field-id': 3 },
  ],
};

describe('Avro object container', () => {
  const records = [
    { id: 9223372036854775807n, ts: -1n, tags: ['a', 'ü'] },
    { id: -9223372036854775808n, ts: null, tags: [] },
    { id: 3051729675574597004n, ts: 1510871468000000n, tags: ['x'] },
  ];

  for (const codec of ['null', 'deflate'] as const) {
    it(`round-trips int64 values exactly with codec ${codec}`, () => {
      const bytes = writeContainer({ schema: SCHEMA, metadata: { 'format-version': '2' }, records, codec });
      const back = readContainer(bytes, 'mem.avro');
      expect(back.records.map((r) => ({ ...(r as object) }))).toEqual(records);
      expect(back.metadata['avro.codec']).toBe(codec);
      expect(back.metadata['format-version']).toBe('2');
    });
  }

  it('reads containers of schemas that differ only in a field after one it built a type for', () => {
    const widened: AvroSchema = { ...SCHEMA, fields: [...(SCHEMA.fields as object[]), { name: 'note', type: ['null', 'string'], default: null, 'field-id': 5 }] };
    const first = readContainer(writeContainer({ schema: SCHEMA, metadata: {}, records }), 'a.avro');
    const second = readContainer(writeContainer({ schema: widened, metadata: {}, records: records.map((r) => ({ ...r, note: 'n' })) }), 'b.avro');
    const again = readContainer(writeContainer({ schema: SCHEMA, metadata: {}, records }), 'c.avro');
    expect(first.records.map((r) => ({ ...(r as object) }))).toEqual(records);
    expect(second.records.map((r) => ({ ...(r as object) }))).toEqual(records.map((r) => ({ ...r, note: 'n' })));
    expect(again.records.map((r) => ({ ...(r as object) }))).toEqual(records);
  });

  it('keeps field-id, element-id and adjust-to-utc in the header schema (read independently)', () => {
    const bytes = writeContainer({ schema: SCHEMA, metadata: { k: 'v' }, records });
    const { metadata } = parseHeader(bytes);
    expect(metadata['k']).toBe('v');
    expect(metadata['avro.codec']).toBe('deflate');
    const schema = JSON.parse(metadata['avro.schema']!);
    expect(schema).toEqual(SCHEMA);
    expect(schema.fields.map((f: { 'field-id': number }) => f['field-id'])).toEqual([1, 2, 3]);
    expect(schema.fields[2].type['element-id']).toBe(4);
    expect(schema.fields[1].type[1]['adjust-to-utc']).toBe(true);
  });

  it('uses raw deflate blocks that zlib can inflate on its own', () => {
    const sync = new Uint8Array(16).fill(7);
    const bytes = writeContainer({ schema: 'long', metadata: {}, records: [1n, 2n], codec: 'deflate', syncMarker: sync });
    const { end } = parseHeader(bytes);
    expect(bytes[end]).toBe(4); // block record count 2, zigzag
    const size = bytes[end + 1]! >> 1; // small block: one-byte zigzag size
    const data = bytes.subarray(end + 2, end + 2 + size);
    expect([...inflateRawSync(data)]).toEqual([2, 4]); // zigzag varints of 1 and 2
    expect([...bytes.subarray(end + 2 + size)]).toEqual([...sync]);
  });

  it('is readable by avsc\'s own container decoder (independent block framing)', async () => {
    const many = Array.from({ length: 30_000 }, (_, i) => ({ id: BigInt(i), ts: i % 2 ? null : BigInt(-i), tags: ['t'] }));
    const bytes = writeContainer({ schema: SCHEMA, metadata: { 'format-version': '3' }, records: many, codec: 'deflate' });
    const seen: { codec?: string; meta?: Record<string, Buffer>; count: number } = { count: 0 };
    await new Promise<void>((resolveDone, reject) => {
      const decoder = new avsc.streams.BlockDecoder({ noDecode: true });
      decoder.on('metadata', (_type: unknown, codec: string, header: { meta: Record<string, Buffer> }) => {
        seen.codec = codec;
        seen.meta = header.meta;
      });
      decoder.on('data', () => seen.count++);
      decoder.on('end', () => resolveDone());
      decoder.on('error', reject);
      decoder.end(Buffer.from(bytes));
    });
    expect(seen.codec).toBe('deflate');
    expect(seen.count).toBe(30_000);
    expect(seen.meta!['format-version']!.toString()).toBe('3');
  });

  it('splits large inputs into several blocks and reads them all', () => {
    const many = Array.from({ length: 40_000 }, (_, i) => ({ id: BigInt(i), ts: null, tags: ['some text to fill the block'] }));
    const bytes = writeContainer({ schema: SCHEMA, metadata: {}, records: many, codec: 'null' });
    const back = readContainer(bytes, 'big.avro').records as { id: bigint }[];
    expect(back.length).toBe(40_000);
    expect(back[39_999]!.id).toBe(39_999n);
  });

  it('rejects a value that does not fit the schema with a typed error', () => {
    expect(() => writeContainer({ schema: SCHEMA, metadata: {}, records: [{ id: 1, ts: null, tags: [] }] })).toThrow(IcebergFormatError);
  });

  it('names the file and codec when the codec is unsupported', () => {
    const bytes = writeContainer({ schema: 'long', metadata: {}, records: [1n], codec: 'null' });
    const patched = Buffer.from(bytes).toString('latin1').replace('\u0008null', '\u0008zstd');
    // Rewrite avro.codec value "null" (len 4) → "zstd"; the header length is unchanged.
    expect(() => readContainer(Buffer.from(patched, 'latin1'), 's3://b/m.avro')).toThrow(/'zstd'.*s3:\/\/b\/m\.avro/);
  });

  it('rejects bad magic, truncation and sync mismatch naming the file', () => {
    expect(() => readContainer(new Uint8Array([1, 2, 3, 4, 5]), 'f1.avro')).toThrow(/f1\.avro/);
    const bytes = writeContainer({ schema: 'long', metadata: {}, records: [1n, 2n], codec: 'null' });
    expect(() => readContainer(bytes.subarray(0, bytes.length - 3), 'f2.avro')).toThrow(/Truncated.*f2\.avro/);
    const broken = new Uint8Array(bytes);
    broken[broken.length - 1] = broken[broken.length - 1]! ^ 0xff;
    expect(() => readContainer(broken, 'f3.avro')).toThrow(/Sync marker.*f3\.avro/);
  });
});

describe('snappy', () => {
  it('decodes literals and overlapping copies (format description vectors)', () => {
    // length 9; literal "abc" (tag (3-1)<<2); copy len 6 offset 3 with 1-byte offset (tag (6-4)<<2|1)
    const compressed = new Uint8Array([9, 0x08, 0x61, 0x62, 0x63, 0x09, 0x03]);
    expect(new TextDecoder().decode(snappyDecompress(compressed))).toBe('abcabcabc');
    // copy with 2-byte offset: tag ((len-1)<<2)|2, len 4 offset 2 after "xy"
    const two = new Uint8Array([6, 0x04, 0x78, 0x79, (3 << 2) | 2, 2, 0]);
    expect(new TextDecoder().decode(snappyDecompress(two))).toBe('xyxyxy');
  });

  it('rejects a copy reaching before the output', () => {
    expect(() => snappyDecompress(new Uint8Array([4, 0x09, 0x05]))).toThrow();
  });
});
