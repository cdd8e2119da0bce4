import { describe, expect, it } from 'vitest';
import type { SourcePosition } from '../../../connectors/streaming-source.js';
import { kafkaOffsetsKey, movedPartitions, offsetAdvance, offsetsSummaryEntry } from '../../../src/engine/graph/streaming/offset-positions.js';
import { TablePositions } from '../../../src/engine/graph/streaming/table-positions.js';
import { MAIN_BRANCH, type TableMetadata } from '../../../src/iceberg/table-metadata.js';

const at = (entries: Array<[number, bigint]>): SourcePosition[] => entries.map(([partition, nextOffset]) => ({ topic: 't', partition, nextOffset }));
const FLOW = 'lake.events';
const SOURCE = 'kafka_records';

/** A table whose current snapshot's summary holds `positions` under the flow's key (none: no snapshot). */
function tableAt(positions: SourcePosition[] | undefined): TableMetadata {
  const snapshots = positions === undefined ? [] : [{ snapshotId: 1n, sequenceNumber: 1n, timestampMs: 1n, manifestList: 'x', summary: { operation: 'append', [kafkaOffsetsKey(FLOW, SOURCE)]: offsetsValue(positions) } }];
  return { snapshots, refs: new Map(positions === undefined ? [] : [[MAIN_BRANCH, { snapshotId: 1n, type: 'branch' }]]) } as unknown as TableMetadata;
}

function offsetsValue(positions: SourcePosition[]): string {
  const topics: Record<string, Record<string, string>> = {};
  for (const p of positions) (topics[p.topic] ??= {})[String(p.partition)] = p.nextOffset.toString();
  return JSON.stringify({ version: 1, topics });
}

describe('the per-partition fence of a batch against the table’s positions', () => {
  // The batch read partition 0 from 10 to 20 and partition 1 from 0 to 5; partition 2 it did not read.
  const before = at([[0, 10n], [1, 0n], [2, 40n]]);
  const after = at([[0, 20n], [1, 5n], [2, 40n]]);
  const advance = offsetAdvance(SOURCE, before, after, new TablePositions(at([[0, 10n]])), false);

  it('notes the table position each partition it read started from (none counts as a position)', () => {
    expect(advance.read).toEqual([
      { tp: { topic: 't', partition: 0 }, basis: 10n },
      { tp: { topic: 't', partition: 1 }, basis: null },
    ]);
  });

  it('commits while the table holds those positions, merging its other partitions in (the higher offset wins)', () => {
    const current = tableAt(at([[0, 10n], [2, 99n], [3, 7n]]));
    expect(movedPartitions(current, FLOW, advance)).toEqual([]);
    const [key, value] = offsetsSummaryEntry(current, FLOW, advance);
    expect(key).toBe('thund.kafka.offsets.lake.events.kafka_records');
    expect(JSON.parse(value).topics).toEqual({ t: { '0': '20', '1': '5', '2': '99', '3': '7' } });
  });

  it('refuses a batch one of whose partitions another writer moved, naming it', () => {
    expect(movedPartitions(tableAt(at([[0, 15n]])), FLOW, advance)).toEqual(['t/0 at 15, expected 10']);
    expect(movedPartitions(tableAt(at([[0, 10n], [1, 3n]])), FLOW, advance)).toEqual(['t/1 at 3, expected none']);
  });

  it('replaces the table’s positions on the first batch of a full refresh', () => {
    const refresh = offsetAdvance(SOURCE, before, after, TablePositions.none(), true);
    const [, value] = offsetsSummaryEntry(tableAt(at([[0, 10n], [3, 7n]])), FLOW, refresh);
    expect(JSON.parse(value).topics).toEqual({ t: { '0': '20', '1': '5', '2': '40' } });
  });
});
