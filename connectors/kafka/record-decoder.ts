/**
 * The decoder contract: what a value format (JSON, Avro, Debezium) implements so that
 * decodeRecords (decode-records.ts) can turn fetched records into source records.
 */
import type { RawRecord } from './raw-record.js';

export type Decoded<V> = { readonly value: V } | { readonly skip: string };

export interface RecordDecoder<V> {
  readonly format: string;
  /**
   * Fetches what decoding these records needs (e.g. Avro writer schemas) so that decode can run
   * synchronously. Throws only for failures a retry may fix; per-record problems surface in decode.
   */
  prepare?(records: readonly RawRecord[]): Promise<void>;
  /** Throws DecodeError for a record that cannot be decoded. */
  decode(record: RawRecord): Decoded<V>;
  /**
   * Optional fast path: true when the value is one JSON object whose bytes can be staged as they
   * are (json-object-check.ts); such a record is decoded only if something reads its value.
   */
  passesAsJson?(record: RawRecord): boolean;
  /**
   * Optional fast path: true when the client already wrote the record's staged line from the value
   * this decoder would give (RawRecord.stagedLine; Avro decoded in the consumer's worker); such a
   * record is decoded only if something reads its value.
   */
  passesAsLine?(record: RawRecord): boolean;
}
