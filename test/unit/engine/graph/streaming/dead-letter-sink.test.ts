/**
 * Dead letters land once, and each commit of them is told to the operator as a warning naming the
 * dead-letter table, how many records it took and the snapshot that holds them.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeadLetterCandidate } from '../../../../../connectors/streaming-source.js';
import { DeadLetterSink } from '../../../../../src/engine/graph/streaming/dead-letter-sink.js';
import type { CommitNotice } from '../../../../../src/table/commit-notice.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../../local-warehouse.js';

let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'dead-letter-sink', namespaces: [['lake']] });
});
afterEach(() => warehouse.close());

const letter = (offset: number): DeadLetterCandidate => ({
  topic: 'orders',
  partition: 0,
  offset: BigInt(offset),
  timestampMs: 0,
  key: null,
  value: Buffer.from('{"id": <oops>'),
  headers: [],
  code: 'JSON',
  reason: 'not JSON',
});

it('warns of each commit of dead letters with their count and snapshot, and lands a range once', async () => {
  const notices: CommitNotice[] = [];
  const sink = new DeadLetterSink({
    catalog: warehouse.catalog,
    io: warehouse.io,
    session: warehouse.session,
    deadLetterTarget: { namespace: ['lake'], name: 'orders_dead_letters' },
    tempDir: warehouse.work,
    onNotice: (notice) => notices.push(notice),
  });
  const range = [{ topic: 'orders', partition: 0, firstOffset: 0n, nextOffset: 10n }];
  await sink.land([letter(3), letter(7)], range);
  await sink.land([letter(3), letter(7)], range);

  const table = await warehouse.catalog.loadTable({ namespace: ['lake'], name: 'orders_dead_letters' });
  expect(table.metadata.snapshots).toHaveLength(1);
  expect(notices).toEqual([
    {
      kind: 'dead-letters',
      table: 'lake.orders_dead_letters',
      snapshotId: table.metadata.currentSnapshotId,
      tableSnapshotId: table.metadata.currentSnapshotId,
      attempt: 1,
      message: '2 dead letters committed to lake.orders_dead_letters',
    },
  ]);
});
