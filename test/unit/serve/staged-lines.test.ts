import { describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { stagedLine, stagedLines, type JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import { decodedRecord, rawRecord } from '../kafka/records.js';

describe('staged batch lines from fetched JSON bytes', () => {
  it('write the same objects as the decoded values would, one line per record', () => {
    const values = ['{"id":1,"name":"café"}', ' {  } ', '{ "nested" : {"a":[1,2]} }\t', '{"_kafka_offset":5}', '{"big":9007199254740993}'];
    const raws = values.map((v, i) =>
      rawRecord(v, { offset: i === 3 ? 2n ** 60n + 7n : BigInt(100 + i), timestampMs: i === 4 ? -5 : 1_764_000_000_000 + i, key: i === 1 ? null : Buffer.from(i === 2 ? 'k"é' : `k-${i}`) }),
    );
    const records = decodeRecords(new JsonDecoder(), raws).records as JsonRecord[];
    expect(records.filter((r) => r.json !== undefined)).toHaveLength(4);
    const staged = stagedLines(records);
    const text = Buffer.concat(staged.chunks).toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(staged.longestLine).toBe(Math.max(...lines.map((l) => Buffer.byteLength(l))));
    expect(lines).toHaveLength(values.length);
    const decoded = records.map((r) => decodedRecord(r, r.value));
    for (let i = 0; i < values.length; i++) {
      expect(JSON.parse(lines[i] as string)).toEqual(JSON.parse(stagedLine(decoded[i] as JsonRecord)));
    }
    expect(lines[4]).toContain('"big":9007199254740993}');
    expect(lines[4]).toContain('"_kafka_timestamp":-5,');
    expect(lines[3]).toContain(`"_kafka_offset":${2n ** 60n + 7n},`);
    expect(JSON.parse(lines[2] as string)).toMatchObject({ _kafka_partition: 2, _kafka_offset: 102, _kafka_key: 'k"é', nested: { a: [1, 2] } });
  });
});
