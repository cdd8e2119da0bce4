/** Raw Kafka records for decoder tests. */
import type { RawRecord } from '../../../connectors/kafka/raw-record.js';
import type { SourceRecord } from '../../../connectors/streaming-source.js';

export function rawRecord(value: Buffer | string | null, overrides: Partial<RawRecord> = {}): RawRecord {
  return {
    topic: 'orders',
    partition: 2,
    offset: 41n,
    timestampMs: 1_764_000_000_000,
    key: Buffer.from('k-1'),
    headers: [],
    value: typeof value === 'string' ? Buffer.from(value, 'utf8') : value,
    ...overrides,
  };
}

/** A source record with the coordinates of `record` and a decoded (not fetched-JSON) value. */
export function decodedRecord<V>(record: SourceRecord<unknown>, value: V, overrides: Partial<SourceRecord<V>> = {}): SourceRecord<V> {
  return { topic: record.topic, partition: record.partition, offset: record.offset, timestampMs: record.timestampMs, key: record.key, headers: record.headers, value, ...overrides };
}
