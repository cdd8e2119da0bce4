import { describe, expect, it } from 'vitest';
import { KAFKA_OFFSETS_SUMMARY_KEY, positionsToSummaryValue } from '../../../connectors/streaming-source.js';
import { TablePositions } from '../../../src/engine/graph/streaming/table-positions.js';
import { applyUpdates, newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import type { Snapshot, TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { primitive } from '../../../src/iceberg/types.js';

const NOW = 1_700_000_000_000n;

function table(): TableMetadata {
  return newTableMetadata({
    location: 'file:///t',
    schema: { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'id', required: false, type: primitive('long') }] },
    nowMs: NOW,
  });
}

function append(metadata: TableMetadata, id: bigint, summary: Record<string, string>, ref = 'main'): TableMetadata {
  const parent = metadata.refs.get(ref)?.snapshotId;
  const snapshot: Snapshot = {
    snapshotId: id,
    ...(parent === undefined ? {} : { parentSnapshotId: parent }),
    sequenceNumber: metadata.lastSequenceNumber + 1n,
    timestampMs: NOW + id,
    manifestList: `file:///t/metadata/snap-${id}.avro`,
    summary: { operation: 'append', ...summary },
  };
  return applyUpdates(metadata, [
    { action: 'add-snapshot', snapshot },
    { action: 'set-snapshot-ref', refName: ref, type: 'branch', snapshotId: id },
  ]);
}

const positions = (entries: Array<[number, bigint]>): Record<string, string> => ({
  [KAFKA_OFFSETS_SUMMARY_KEY]: positionsToSummaryValue(entries.map(([partition, nextOffset]) => ({ topic: 't', partition, nextOffset }))),
});

describe('table positions from the main branch ancestry', () => {
  it('takes the newest snapshot that carries the key, skipping newer ones without it', () => {
    let m = append(table(), 1n, positions([[0, 5n]]));
    m = append(m, 2n, positions([[0, 9n], [1, 3n]]));
    m = append(m, 3n, {});
    const found = TablePositions.of(m);
    expect(found.of({ topic: 't', partition: 0 })).toBe(9n);
    expect(found.of({ topic: 't', partition: 1 })).toBe(3n);
    expect(found.of({ topic: 't', partition: 2 })).toBeNull();
    expect(found.only([{ topic: 't', partition: 1 }, { topic: 't', partition: 2 }])).toEqual([{ topic: 't', partition: 1, nextOffset: 3n }]);
  });

  it('ignores snapshots of other branches and reports none for a table without snapshots', () => {
    expect(TablePositions.of(table()).list).toEqual([]);
    let m = append(table(), 1n, positions([[0, 5n]]));
    m = append(m, 2n, positions([[0, 50n]]), 'audit');
    expect(TablePositions.of(m).of({ topic: 't', partition: 0 })).toBe(5n);
  });
});
