/**
 * A Kafka record as fetched, before decoding: coordinates, timestamp, key, value and headers as
 * bytes. Every decoder reads this and every dead letter is built from it.
 */
import type { DeadLetterCandidate, RecordHeader, StagedLineRef, TopicPartition } from '../streaming-source.js';

export interface RawRecord extends TopicPartition {
  readonly offset: bigint;
  readonly timestampMs: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
  /** The JSON decoder's byte check of the value (isStageableJsonValue), when the client ran it already. */
  readonly stageableJson?: boolean | undefined;
  /** Key plus value bytes (or, for a value kept in its staged line, the line's), when the record knows it without reading them. */
  readonly byteLength?: number;
  /** Key plus value bytes as fetched, wherever the value is kept, when the record knows it without reading them. */
  readonly fetchedBytes?: number;
  /** With a staged line: names including every top-level key of the value (SourceRecord.fieldNames). */
  readonly fieldNames?: readonly string[] | undefined;
  /** With a staged line: its value's shape (SourceRecord.shape). */
  readonly shape?: number | undefined;
  /** The record's staged line, when the client wrote it (SourceRecord.stagedLine): of a checked JSON value, or of a value it decoded. */
  readonly stagedLine?: StagedLineRef | undefined;
}

export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

export function recordBytes(record: RawRecord): number {
  return record.byteLength ?? (record.key?.length ?? 0) + (record.value?.length ?? 0);
}

export function deadLetterOf(record: RawRecord, code: string, reason: string): DeadLetterCandidate {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestampMs: record.timestampMs,
    key: record.key,
    value: record.value,
    headers: record.headers,
    code,
    reason,
  };
}

/** The last value of a header as UTF-8 text, or undefined when absent or null. */
export function headerText(record: { readonly headers: readonly RecordHeader[] }, key: string): string | undefined {
  for (let i = record.headers.length - 1; i >= 0; i--) {
    const header = record.headers[i];
    if (header?.key === key) return header.value?.toString('utf8');
  }
  return undefined;
}
