/**
 * Regroups a stream of record chunks into sends bounded by a record count and by key and value
 * bytes, so one send stays below the brokers' record-batch limit whatever the chunk sizes are.
 */
import type { OutgoingRecord } from './producer-client.js';

export interface SendLimits {
  readonly records: number;
  readonly bytes: number;
}

/** 512 KiB stays below the brokers' default 1 MiB record-batch limit. */
export const DEFAULT_SEND_LIMITS: SendLimits = { records: 5_000, bytes: 512 * 1024 };

export type RecordChunks = AsyncIterable<readonly OutgoingRecord[]> | Iterable<readonly OutgoingRecord[]>;

export async function* sendBatches(chunks: RecordChunks, limits: SendLimits): AsyncGenerator<OutgoingRecord[]> {
  let batch: OutgoingRecord[] = [];
  let bytes = 0;
  for await (const chunk of chunks) {
    for (const record of chunk) {
      const size = record.value.length + (record.key?.length ?? 0);
      if (batch.length > 0 && (batch.length >= limits.records || bytes + size > limits.bytes)) {
        yield batch;
        batch = [];
        bytes = 0;
      }
      batch.push(record);
      bytes += size;
    }
  }
  if (batch.length > 0) yield batch;
}
