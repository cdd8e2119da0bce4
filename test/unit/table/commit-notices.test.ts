/**
 * commitSnapshot tells its caller what it had to settle, naming its snapshot id and the table's:
 * a lost answer found applied, found not applied (tried again with the same id) or left unknown,
 * a 409 retried on the moved table, and a commit fenced off because the table moved under it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, LoadedTable } from '../../../catalog/catalog.js';
import { CommitStateUnknownError, StalePositionsError } from '../../../src/errors.js';
import type { CommitNotice } from '../../../src/table/commit-notice.js';
import { commitSnapshot, type CommitFence } from '../../../src/table/commit-snapshot.js';
import { CommitTestTable, ID } from './commit-test-table.js';

let t: CommitTestTable;

beforeEach(async () => {
  t = await CommitTestTable.open();
});
afterEach(async () => {
  await t.close();
});

async function commitNoting(via: Catalog, base?: LoadedTable, fence?: CommitFence): Promise<{ notices: CommitNotice[]; outcome: Promise<{ snapshotId: bigint }> }> {
  const notices: CommitNotice[] = [];
  const table = base ?? (await t.load());
  const files = await t.writeRows(0, 3);
  const outcome = commitSnapshot({
    catalog: via,
    identifier: ID,
    base: { metadata: table.metadata, io: t.io, create: false },
    mode: 'append',
    addedFiles: files,
    retryPolicy: { numRetries: 3, minWaitMs: 1, maxWaitMs: 2, totalTimeoutMs: 60_000 },
    onNotice: (notice) => notices.push(notice),
    ...(fence === undefined ? {} : { fence }),
  }).then((result) => ({ snapshotId: result.snapshot.snapshotId }));
  return { notices, outcome };
}

const currentSnapshot = async (): Promise<bigint | undefined> => (await t.load()).metadata.currentSnapshotId;

describe('commitSnapshot notices', () => {
  it('names the snapshot of a lost answer that was applied', async () => {
    const landsThenLost = t.catalogWith(async (real, ...args) => {
      await real(...args);
      throw new CommitStateUnknownError('connection reset after the request was sent');
    });
    const { notices, outcome } = await commitNoting(landsThenLost);
    const { snapshotId } = await outcome;
    expect(notices).toEqual([expect.objectContaining({ kind: 'unknown-outcome-applied', table: 'db.t', snapshotId, tableSnapshotId: snapshotId, attempt: 1 })]);
    expect(notices[0]?.message).toContain(String(snapshotId));
  });

  it('names the snapshot of a lost answer that was not applied, then commits it with the same id', async () => {
    let calls = 0;
    const losesFirst = t.catalogWith(async (real, ...args) => {
      calls += 1;
      if (calls === 1) throw new CommitStateUnknownError('no answer');
      return real(...args);
    });
    const { notices, outcome } = await commitNoting(losesFirst);
    const { snapshotId } = await outcome;
    expect(notices).toEqual([expect.objectContaining({ kind: 'unknown-outcome-not-applied', snapshotId, attempt: 1 })]);
    expect(notices[0]?.tableSnapshotId).toBeUndefined();
    expect(await currentSnapshot()).toBe(snapshotId);
  });

  it('says when a lost answer could not be settled', async () => {
    const neverAnswers = t.catalogWith(async () => Promise.reject(new CommitStateUnknownError('no answer')));
    const broken: Catalog = Object.create(neverAnswers, { loadTable: { value: async () => Promise.reject(new Error('catalog down')) } }) as Catalog;
    const { notices, outcome } = await commitNoting(broken, await t.load());
    await expect(outcome).rejects.toBeInstanceOf(CommitStateUnknownError);
    expect(notices.map((n) => n.kind)).toEqual(['unknown-outcome-unresolved']);
  });

  it('names both snapshots of a 409 retried on the moved table', async () => {
    const stale = await t.load();
    const other = await t.append(await t.writeRows(100, 2));
    const { notices, outcome } = await commitNoting(t.catalog, stale);
    const { snapshotId } = await outcome;
    expect(notices).toEqual([expect.objectContaining({ kind: 'conflict-retry', snapshotId, tableSnapshotId: other.snapshot.snapshotId, attempt: 1 })]);
    expect(notices[0]?.message).toContain(String(other.snapshot.snapshotId));
  });

  it('names the snapshot a fence kept out and the table it was fenced on', async () => {
    const stale = await t.load();
    const other = await t.append(await t.writeRows(100, 2));
    const fence: CommitFence = (current) => {
      if (current.currentSnapshotId !== stale.metadata.currentSnapshotId) throw new StalePositionsError('another run moved the positions');
    };
    const { notices, outcome } = await commitNoting(t.catalog, stale, fence);
    await expect(outcome).rejects.toBeInstanceOf(StalePositionsError);
    expect(notices).toEqual([expect.objectContaining({ kind: 'fenced', tableSnapshotId: other.snapshot.snapshotId, attempt: 2 })]);
    expect(notices[0]?.message).toContain('another run moved the positions');
    expect(await currentSnapshot()).toBe(other.snapshot.snapshotId);
  });
});
