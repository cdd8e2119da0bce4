/**
 * A record that cannot be decoded. It carries the record's coordinates and raw bytes so the
 * record can be parked as a dead letter and found again; never retryable (the bytes will not change).
 */
import { ThundError } from '../../src/errors.js';
import type { RawRecord } from './raw-record.js';

export class DecodeError extends ThundError {
  readonly record: RawRecord;
  readonly reason: string;

  constructor(record: RawRecord, reason: string, cause?: unknown) {
    super('DECODE_FAILED', `Cannot decode record ${record.topic}/${record.partition}@${record.offset}: ${reason}`, {
      cause,
      context: { topic: record.topic, partition: record.partition, offset: record.offset },
    });
    this.record = record;
    this.reason = reason;
  }

  get raw(): Buffer | null {
    return this.record.value;
  }
}
