/**
 * The offset ranges of a Kafka input's next micro-batch: from each partition's position towards
 * the end offset the round saw, at most `budget` offsets in all, shared fairly (every partition
 * with records gets an equal share; what a short partition leaves goes to the others), so each
 * batch advances every partition and an event-time watermark is not held back by one of them.
 */
import type { PositionRange, SourcePosition } from '../../../../connectors/streaming-source.js';

export function nextRanges(positions: readonly SourcePosition[], ends: ReadonlyMap<string, bigint>, keyOf: (p: SourcePosition) => string, budget: number): PositionRange[] {
  const open = positions
    .map((p) => ({ p, left: (ends.get(keyOf(p)) ?? p.nextOffset) - p.nextOffset }))
    .filter((x) => x.left > 0n)
    .sort((a, b) => (a.left < b.left ? -1 : a.left > b.left ? 1 : 0));
  const ranges: PositionRange[] = [];
  let remaining = BigInt(Math.max(1, Math.floor(budget)));
  for (const [index, { p, left }] of open.entries()) {
    const share = remaining / BigInt(open.length - index);
    const take = left < share ? left : share > 0n ? share : 1n;
    if (remaining <= 0n) break;
    ranges.push({ topic: p.topic, partition: p.partition, firstOffset: p.nextOffset, nextOffset: p.nextOffset + take });
    remaining -= take;
  }
  return ranges.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}
