import { describe, expect, it } from 'vitest';
import { newSnapshotId, snapshotIdFromUuid } from '../../../src/iceberg/snapshot-id.js';

describe('snapshot ids', () => {
  it('XORs the two halves of the UUID and masks the sign bit', () => {
    const uuid = 'f79c3e09-677c-4bbd-a479-3f349cb785e7';
    const bytes = Buffer.from(uuid.replaceAll('-', ''), 'hex');
    const expected = (bytes.readBigUInt64BE(0) ^ bytes.readBigUInt64BE(8)) & ((1n << 63n) - 1n);
    expect(snapshotIdFromUuid(uuid)).toBe(expected);
    // high half f79c3e09677c4bbd ^ low half a4793f349cb785e7 = 53e5013dfbcbce5a
    expect(snapshotIdFromUuid(uuid)).toBe(0x53e5013dfbcbce5an);
  });

  it('produces positive, distinct int64 ids that avoid existing ones', () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 2000; i++) {
      const id = newSnapshotId(seen);
      expect(id > 0n && id <= 0x7fffffffffffffffn).toBe(true);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    // ids are spread over the whole range, not small
    expect([...seen].some((id) => id > 1n << 53n)).toBe(true);
  });
});
