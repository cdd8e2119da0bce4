import { describe, expect, it } from 'vitest';
import { topicPartitionKey, type PositionRange } from '../../../connectors/streaming-source.js';
import { decide } from '../../../src/engine/graph/streaming/micro-batch-loop.js';
import { TablePositions } from '../../../src/engine/graph/streaming/table-positions.js';

const range = (partition: number, firstOffset: bigint, nextOffset: bigint): PositionRange => ({ topic: 't', partition, firstOffset, nextOffset });
const at = (entries: Array<[number, bigint]>): TablePositions => new TablePositions(entries.map(([partition, nextOffset]) => ({ topic: 't', partition, nextOffset })));
const expected = (entries: Array<[number, bigint | null]>): Map<string, bigint | null> => new Map(entries.map(([partition, offset]) => [topicPartitionKey({ topic: 't', partition }), offset]));

describe('commit decision against the table’s positions', () => {
  const ranges = [range(0, 10n, 20n), range(1, 0n, 5n)];

  it('commits while the table holds the positions the batch was read from (none counts as a position)', () => {
    expect(decide(ranges, expected([[0, 10n], [1, null]]), at([[0, 10n], [2, 99n]]))).toEqual({
      kind: 'commit',
      advanced: [
        { topic: 't', partition: 0, nextOffset: 20n },
        { topic: 't', partition: 1, nextOffset: 5n },
      ],
    });
  });

  it('reports a batch whose every partition the table already holds as covered', () => {
    expect(decide(ranges, expected([[0, 10n], [1, null]]), at([[0, 20n], [1, 7n]]))).toEqual({ kind: 'covered' });
  });

  it('refuses a batch one of whose partitions another writer moved', () => {
    const decision = decide(ranges, expected([[0, 10n], [1, null]]), at([[0, 15n]]));
    expect(decision.kind).toBe('stale');
    expect(decision.kind === 'stale' ? decision.reason : '').toMatch(/t\/0 at 15, expected 10/);
    expect(decide(ranges, expected([[0, 10n], [1, null]]), at([[0, 10n], [1, 3n]])).kind).toBe('stale');
  });
});
