import { describe, expect, it } from 'vitest';
import { LineWriter, partitionHead, writeStagedLine } from '../../../connectors/kafka/staged-line.js';

const written = (write: (out: LineWriter) => void): string => {
  const out = new LineWriter(4);
  write(out);
  return out.done().toString('utf8');
};

describe('the staged line of a Kafka record', () => {
  it('writes integers as String() does, across the 10^9 split, signs and the safe limit', () => {
    const values = [0, 7, 10, 999_999_999, 1_000_000_000, 1_000_000_007, 1_765_000_000_007, -1, -1_000_000_000, -1_765_000_000_007, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1.5];
    for (let i = 0; i < 2_000; i++) values.push(Math.trunc((i % 3 === 0 ? -1 : 1) * 2 ** ((i * 7919) % 53) + i));
    for (const value of values) expect(written((out) => out.integer(value))).toBe(String(value));
  });

  it('starts every line of a partition with its head, and keeps the value as fetched', () => {
    const head = partitionHead(4);
    const line = written((out) => writeStagedLine(out, head, { offset: '9007199254740993', timestampMs: 1_765_000_000_007, key: Buffer.from('k-1'), headers: [], json: Buffer.from(' {"id": 1, "note": "é"}') }));
    expect(line).toBe('{"_kafka_partition":4,"_kafka_offset":9007199254740993,"_kafka_timestamp":1765000000007,"_kafka_key":"k-1" ,"id": 1, "note": "é"}\n');
    expect(JSON.parse(line)).toMatchObject({ _kafka_partition: 4, _kafka_key: 'k-1', id: 1, note: 'é' });
  });

  it('writes the headers only of a record that has some', () => {
    const head = partitionHead(0);
    const line = written((out) => writeStagedLine(out, head, { offset: '7', timestampMs: 1, key: null, headers: [{ key: 'trace', value: Buffer.from('é') }, { key: 'gone', value: null }], json: Buffer.from('{}') }));
    expect(JSON.parse(line)).toEqual({ _kafka_partition: 0, _kafka_offset: 7, _kafka_timestamp: 1, _kafka_key: null, _kafka_headers: [{ key: 'trace', value: 'é' }, { key: 'gone', value: null }] });
  });

  it('copies a plain key as it is and escapes any other, leaving nothing of a refused copy behind', () => {
    const head = partitionHead(1);
    for (const key of ['k-1', 'k"1', 'k\\1', 'k\u00011', 'ké', '', 'x'.repeat(40) + '\n']) {
      const line = written((out) => writeStagedLine(out, head, { offset: '1', timestampMs: 2, key: Buffer.from(key), headers: [], json: Buffer.from('{"id":1}') }));
      expect(JSON.parse(line)).toEqual({ _kafka_partition: 1, _kafka_offset: 1, _kafka_timestamp: 2, _kafka_key: key, id: 1 });
    }
    const out = new LineWriter(4);
    out.byte(0x41);
    expect(out.plainText(Buffer.from('abc"def'), 0, 7)).toBe(false);
    expect(out.plainText(Buffer.from('abc"def'), 4, 7)).toBe(true);
    expect(out.done().toString()).toBe('Adef');
  });
});
