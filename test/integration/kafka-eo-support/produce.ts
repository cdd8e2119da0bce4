/**
 * Produces keyed records (~200 bytes; JSON unless another encoding of the same fields is given)
 * round-robin over a topic's partitions, and the checksum the tests compare landed keys with.
 */
import { createHash } from 'node:crypto';
import type { Message, Producer } from 'kafkajs';

/** The fields of record `i`'s value. */
export function recordFields(i: number): { id: number; name: string; amount: number; city: string; note: string } {
  return { id: i, name: `customer-${i}`, amount: i * 1.25, city: 'Lisbon', note: 'x'.repeat(120) };
}

export function recordValue(i: number): string {
  return JSON.stringify(recordFields(i));
}

export async function produceRange(
  producer: Producer,
  topic: string,
  partitions: number,
  from: number,
  count: number,
  chunk = 5_000,
  valueOf: (i: number) => string | Buffer = recordValue,
): Promise<void> {
  for (let start = from; start < from + count; start += chunk) {
    const messages: Message[] = [];
    for (let i = start; i < Math.min(from + count, start + chunk); i++) messages.push({ partition: i % partitions, key: `k-${i}`, value: valueOf(i) });
    await producer.send({ topic, messages, acks: -1 });
  }
}

/** Order-independent digest of a key multiset: the same keys in any order, same digest. */
export function keyChecksum(keys: Iterable<string>): string {
  const sorted = [...keys].sort();
  const hash = createHash('sha256');
  for (const key of sorted) hash.update(`${key}\n`);
  return hash.digest('hex');
}

export function expectedKeys(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `k-${from + i}`);
}
