/**
 * `Idempotency-Key` values (ICEBERG.md §7.6): UUIDv7 (RFC 9562 §5.7), a 48-bit Unix-millisecond
 * timestamp, version 7, 74 random bits and the RFC variant.
 */
import { randomBytes } from 'node:crypto';

export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = randomBytes(16);
  let ms = BigInt(Math.floor(nowMs));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
