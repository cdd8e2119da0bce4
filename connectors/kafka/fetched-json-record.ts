/**
 * A source record whose value is still the fetched JSON bytes (the decoder's passesAsJson said
 * they can be staged as they are): the engine stages the bytes (or the line the client wrote
 * with them), and the decoder runs (once) only if something reads `value`. Every other field is
 * read from the fetched record when asked for, so a record waiting in a batch holds no copies.
 */
import { LinedRecord } from './lined-record.js';

export class FetchedJsonRecord<V> extends LinedRecord<V> {
  private fetched: Buffer | undefined;

  /** Read once: a value kept only in its staged line is copied out of it. */
  get json(): Buffer {
    this.fetched ??= this.record.value as Buffer;
    return this.fetched;
  }

  override get raw(): Buffer {
    return this.json;
  }
}
