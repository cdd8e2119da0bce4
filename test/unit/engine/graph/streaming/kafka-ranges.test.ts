/** A Kafka input's next micro-batch: at most the budget of offsets, shared fairly over the partitions with records left. */
import { expect, it } from 'vitest';
import { nextRanges } from '../../../../../src/engine/graph/streaming/kafka-ranges.js';

const key = (p: { topic: string; partition: number }): string => `${p.topic}/${p.partition}`;
const at = (partition: number, nextOffset: bigint) => ({ topic: 't', partition, nextOffset });
const spans = (ranges: ReturnType<typeof nextRanges>): [number, number, number][] => ranges.map((r) => [r.partition, Number(r.firstOffset), Number(r.nextOffset)]);

it('takes everything left when it fits the budget', () => {
  const ends = new Map([['t/0', 10n], ['t/1', 5n]]);
  expect(spans(nextRanges([at(0, 2n), at(1, 0n)], ends, key, 100))).toEqual([[0, 2, 10], [1, 0, 5]]);
});

it('shares the budget equally, giving what a short partition leaves to the others', () => {
  const ends = new Map([['t/0', 1_000n], ['t/1', 3n], ['t/2', 1_000n]]);
  // 30 offsets: partition 1 has 3 left, the other two share the remaining 27 (13 and 14).
  const ranges = nextRanges([at(0, 0n), at(1, 0n), at(2, 0n)], ends, key, 30);
  expect(spans(ranges)).toEqual([[0, 0, 13], [1, 0, 3], [2, 0, 14]]);
  expect(ranges.reduce((sum, r) => sum + Number(r.nextOffset - r.firstOffset), 0)).toBe(30);
});

it('leaves out partitions at their end, and takes no more than the budget when it is smaller than the partition count', () => {
  const ends = new Map([['t/0', 5n], ['t/1', 9n], ['t/2', 9n], ['t/3', 9n]]);
  expect(spans(nextRanges([at(0, 5n), at(1, 0n), at(2, 0n), at(3, 0n)], ends, key, 2))).toEqual([[1, 0, 1], [2, 0, 1]]);
  expect(nextRanges([at(0, 5n)], ends, key, 10)).toEqual([]);
});
