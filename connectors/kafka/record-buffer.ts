/**
 * Fetched records waiting for poll, in arrival order across partitions, with per-partition byte
 * counts so the source can pause a partition whose backlog is large. Chunks of a partition can be
 * dropped whole (revoked, or sought elsewhere).
 */
import { recordBytes, type RawRecord } from './raw-record.js';

interface Chunk {
  readonly key: string;
  readonly records: readonly RawRecord[];
  next: number;
}

export class RecordBuffer {
  private chunks: Chunk[] = [];
  private readonly bytes = new Map<string, number>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  bytesOf(key: string): number {
    return this.bytes.get(key) ?? 0;
  }

  /** Whether records of this partition wait (some may have no bytes at all). */
  has(key: string): boolean {
    return this.chunks.some((chunk) => chunk.key === key && chunk.next < chunk.records.length);
  }

  push(key: string, records: readonly RawRecord[]): void {
    if (records.length === 0) return;
    this.chunks.push({ key, records, next: 0 });
    this.count += records.length;
    this.bytes.set(key, this.bytesOf(key) + records.reduce((sum, r) => sum + recordBytes(r), 0));
  }

  /** The first `max` records without removing them. */
  peek(max: number): RawRecord[] {
    const out: RawRecord[] = [];
    for (const chunk of this.chunks) {
      for (let i = chunk.next; i < chunk.records.length && out.length < max; i++) out.push(chunk.records[i] as RawRecord);
      if (out.length >= max) break;
    }
    return out;
  }

  /** Removes and returns the first `n` records. */
  take(n: number): RawRecord[] {
    const out: RawRecord[] = [];
    while (out.length < n && this.chunks.length > 0) {
      const chunk = this.chunks[0] as Chunk;
      let bytes = 0;
      while (chunk.next < chunk.records.length && out.length < n) {
        const record = chunk.records[chunk.next++] as RawRecord;
        bytes += recordBytes(record);
        out.push(record);
      }
      this.bytes.set(chunk.key, this.bytesOf(chunk.key) - bytes);
      if (chunk.next >= chunk.records.length) this.chunks.shift();
    }
    this.count -= out.length;
    return out;
  }

  drop(key: string): void {
    const kept: Chunk[] = [];
    for (const chunk of this.chunks) {
      if (chunk.key === key) this.count -= chunk.records.length - chunk.next;
      else kept.push(chunk);
    }
    this.chunks = kept;
    this.bytes.delete(key);
  }
}
