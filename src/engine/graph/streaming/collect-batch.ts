/**
 * Pulls one micro-batch: polls until it holds `maxRecords` consumed records or `maxWaitMs` have
 * passed since the first poll (whichever comes first), or the loop is told to stop. Ranges of the
 * same partition from several polls join into one.
 */
import { topicPartitionKey, type DeadLetterCandidate, type PositionRange, type StreamingSource } from '../../../../connectors/streaming-source.js';
import type { JsonRecord } from './batch-staging.js';

export interface CollectedBatch {
  readonly records: JsonRecord[];
  readonly deadLetters: DeadLetterCandidate[];
  readonly skipped: number;
  readonly ranges: PositionRange[];
}

/** Polls are capped so that one poll never holds much more than a batch. */
const MAX_POLL_RECORDS = 20_000;

export async function collectBatch(
  source: StreamingSource<Record<string, unknown>>,
  maxRecords: number,
  maxWaitMs: number,
  stopping: () => boolean,
): Promise<CollectedBatch> {
  const deadline = Date.now() + maxWaitMs;
  const records: JsonRecord[] = [];
  const deadLetters: DeadLetterCandidate[] = [];
  const ranges = new Map<string, PositionRange>();
  let skipped = 0;
  let consumed = 0;
  while (consumed < maxRecords && !stopping()) {
    const wait = deadline - Date.now();
    if (wait <= 0) break;
    const polled = await source.poll(Math.min(MAX_POLL_RECORDS, maxRecords - consumed), Math.min(wait, 500));
    for (const r of polled.records) records.push(r);
    for (const d of polled.deadLetters) deadLetters.push(d);
    for (const n of Object.values(polled.skipped)) skipped += n;
    for (const range of polled.ranges) {
      consumed += Number(range.nextOffset - range.firstOffset);
      const key = topicPartitionKey(range);
      const known = ranges.get(key);
      ranges.set(key, known === undefined ? range : { ...known, nextOffset: range.nextOffset > known.nextOffset ? range.nextOffset : known.nextOffset });
    }
  }
  return { records, deadLetters, skipped, ranges: [...ranges.values()] };
}
