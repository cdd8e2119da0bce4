/** Raw Kafka records for decoder tests. */
import type { RawRecord } from '../../../connectors/kafka/raw-record.js';

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
