/**
 * Snapshot ids (spec §0, Java's rule): a random UUIDv4's high 64 bits XOR its low 64 bits,
 * masked to a positive int64, never zero and never one the table already has.
 */
import { randomUUID } from 'node:crypto';

const MASK = 0x7fff_ffff_ffff_ffffn;

export function newSnapshotId(existing?: Iterable<bigint>): bigint {
  const taken = new Set(existing ?? []);
  for (;;) {
    const id = snapshotIdFromUuid(randomUUID());
    if (id !== 0n && !taken.has(id)) return id;
  }
}

/** The id Java derives from a given UUID (exported for tests and reproducible ids). */
export function snapshotIdFromUuid(uuid: string): bigint {
  const hex = uuid.replaceAll('-', '');
  const hi = BigInt(`0x${hex.slice(0, 16)}`);
  const lo = BigInt(`0x${hex.slice(16, 32)}`);
  return (hi ^ lo) & MASK;
}
