/**
 * The batch step every source runs: records that decode become source records, records that do
 * not become dead-letter candidates (never dropped), and records a decoder consumes on purpose
 * without a row (tombstones) are counted by reason. Every source record keeps the value's fetched
 * bytes (`raw`), so a record that fails later is dead-lettered with exactly what was read.
 */
import type { DeadLetterCandidate, SourceRecord } from '../streaming-source.js';
import { DecodeError } from './decode-error.js';
import { FetchedJsonRecord } from './fetched-json-record.js';
import { LinedRecord } from './lined-record.js';
import { deadLetterOf, type RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

export interface DecodedBatch<V> {
  readonly records: SourceRecord<V>[];
  readonly deadLetters: DeadLetterCandidate[];
  readonly skipped: Record<string, number>;
}

export function decodeRecords<V>(decoder: RecordDecoder<V>, raws: readonly RawRecord[]): DecodedBatch<V> {
  const records: SourceRecord<V>[] = [];
  const deadLetters: DeadLetterCandidate[] = [];
  const skipped: Record<string, number> = {};
  for (const raw of raws) {
    if (decoder.passesAsJson?.(raw) === true) {
      records.push(new FetchedJsonRecord(raw, decoder));
      continue;
    }
    if (decoder.passesAsLine?.(raw) === true) {
      records.push(new LinedRecord(raw, decoder));
      continue;
    }
    let decoded: Decoded<V>;
    try {
      decoded = decoder.decode(raw);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      deadLetters.push(deadLetterOf(raw, error.code, error.reason));
      continue;
    }
    if ('skip' in decoded) {
      skipped[decoded.skip] = (skipped[decoded.skip] ?? 0) + 1;
      continue;
    }
    const { topic, partition, offset, timestampMs, key, headers } = raw;
    records.push({ topic, partition, offset, timestampMs, key, headers, value: decoded.value, raw: raw.value });
  }
  return { records, deadLetters, skipped };
}
