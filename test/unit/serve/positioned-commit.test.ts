/**
 * commitWithPositions against the real SQLite catalog, with another worker committing in the
 * window between our write and our commit: the positions are read again from the reloaded table
 * on a 409 retry (the other worker's partitions are kept), and the batch is refused (nothing of it
 * referenced) when the other writer moved a partition of ours.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KAFKA_OFFSETS_SUMMARY_KEY, positionsFromSummary, positionsToSummaryValue, type SourcePosition } from '../../../connectors/streaming-source.js';
import { commitWithPositions, type CommitDecision } from '../../../src/engine/graph/streaming/positioned-commit.js';
import { TablePositions } from '../../../src/engine/graph/streaming/table-positions.js';
import { CommitStateUnknownError } from '../../../src/errors.js';
import type { Catalog } from '../../../catalog/catalog.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { CommitTestTable, ID } from '../table/commit-test-table.js';

let t: CommitTestTable;

beforeEach(async () => {
  t = await CommitTestTable.open();
});

afterEach(async () => {
  await t.close();
});

const at = (entries: Array<[number, bigint]>): SourcePosition[] => entries.map(([partition, nextOffset]) => ({ topic: 't', partition, nextOffset }));
const sorted = (positions: readonly SourcePosition[]): Array<[number, bigint]> =>
  positions.map((p): [number, bigint] => [p.partition, p.nextOffset]).sort((a, b) => a[0] - b[0]);

/** Another worker's append that records these positions (the whole set, as serve's summaries do). */
async function otherWorkerCommits(positions: Array<[number, bigint]>, firstId: number): Promise<void> {
  await t.append(await t.writeRows(firstId, 3), t.catalog, undefined, { [KAFKA_OFFSETS_SUMMARY_KEY]: positionsToSummaryValue(at(positions)) });
}

/** A catalog whose first commit lets the other worker commit first (so ours meets a moved table), then goes on. */
function racedBy(positions: Array<[number, bigint]>, outcome: 'forward' | 'lose' = 'forward'): Catalog {
  let calls = 0;
  return t.catalogWith(async (real, ...args) => {
    calls += 1;
    if (calls === 1) {
      await otherWorkerCommits(positions, 1_000);
      if (outcome === 'lose') throw new CommitStateUnknownError('connection reset before the server saw the request');
    }
    return real(...args);
  });
}

/** Our batch: partition 0 from offset 10 to 20, read from the table's position 10 (what serve's decide does). */
function decideFrom(seen: Array<Array<[number, bigint]>>): (positions: TablePositions) => CommitDecision {
  return (positions) => {
    seen.push(sorted(positions.list));
    const ours = positions.of({ topic: 't', partition: 0 });
    if (ours === 10n) return { kind: 'commit', advanced: at([[0, 20n]]) };
    if (ours !== null && ours >= 20n) return { kind: 'covered' };
    return { kind: 'stale', reason: `partition 0 is at ${ours}` };
  };
}

async function ourBatch(via: Catalog, seen: Array<Array<[number, bigint]>>, conflicts: { count: number }) {
  const files = await t.writeRows(0, 10);
  const outcome = await commitWithPositions({
    catalog: via,
    identifier: ID,
    io: t.io,
    files,
    summaryProperties: { 'thund.engine': 'test' },
    decide: decideFrom(seen),
    onConflict: () => void conflicts.count++,
  });
  return { files, outcome };
}

describe('commitWithPositions', () => {
  beforeEach(async () => {
    await otherWorkerCommits([[0, 10n], [1, 5n]], 500);
  });

  it('re-reads the positions on a 409 retry and keeps the partition the other worker moved', async () => {
    const seen: Array<Array<[number, bigint]>> = [];
    const conflicts = { count: 0 };
    const { outcome } = await ourBatch(racedBy([[0, 10n], [1, 8n]]), seen, conflicts);
    expect(outcome.kind).toBe('committed');
    expect(outcome.attempts).toBe(2);
    expect(conflicts.count).toBe(1);
    expect(seen).toEqual([
      [[0, 10n], [1, 5n]],
      [[0, 10n], [1, 8n]],
    ]);
    const { metadata } = await t.load();
    const current = metadata.snapshots.find((s) => s.snapshotId === metadata.currentSnapshotId);
    expect(current?.summary['thund.engine']).toBe('test');
    expect(sorted(positionsFromSummary(current?.summary))).toEqual([[0, 20n], [1, 8n]]);
    expect(sorted(TablePositions.of(metadata).list)).toEqual([[0, 20n], [1, 8n]]);
    expect((await liveDataFiles(t.io, metadata)).reduce((n, f) => n + f.recordCount, 0n)).toBe(16n);
    expect(await t.unreferencedAvroFiles()).toEqual([]);
  });

  it('refuses the batch as stale when the other writer moved our partition, leaving nothing of it referenced', async () => {
    const seen: Array<Array<[number, bigint]>> = [];
    const conflicts = { count: 0 };
    const { files, outcome } = await ourBatch(racedBy([[0, 15n], [1, 5n]]), seen, conflicts);
    expect(outcome).toMatchObject({ kind: 'stale', reason: 'partition 0 is at 15', attempts: 2, outcomeWasUnknown: false });
    expect(sorted(outcome.positions.list)).toEqual([[0, 15n], [1, 5n]]);
    expect(conflicts.count).toBe(1);
    const { metadata } = await t.load();
    expect(metadata.snapshots).toHaveLength(2);
    expect(metadata.snapshots.every((s) => s.summary['thund.engine'] !== 'test')).toBe(true);
    expect(await t.unreferencedAvroFiles()).toEqual([]);
    const live = new Set((await liveDataFiles(t.io, metadata)).map((f) => f.filePath));
    for (const file of files) expect(live.has(file.filePath)).toBe(false);
  });

  it('reports the batch as covered when the table already holds its positions', async () => {
    const { outcome } = await ourBatch(racedBy([[0, 20n], [1, 5n]]), [], { count: 0 });
    expect(outcome).toMatchObject({ kind: 'covered', attempts: 2, outcomeWasUnknown: false });
  });

  it('after a lost attempt, a refusal says so and keeps our files (that attempt could still land)', async () => {
    const conflicts = { count: 0 };
    const { files, outcome } = await ourBatch(racedBy([[0, 15n], [1, 5n]], 'lose'), [], conflicts);
    expect(outcome).toMatchObject({ kind: 'stale', outcomeWasUnknown: true });
    expect(conflicts.count).toBe(0);
    expect((await t.unreferencedAvroFiles()).length).toBe(2);
    for (const file of files) expect(await t.io.exists(file.filePath)).toBe(true);
  });

  it('commits at once when nobody raced it', async () => {
    const conflicts = { count: 0 };
    const { outcome } = await ourBatch(t.catalog, [], conflicts);
    expect(outcome.kind).toBe('committed');
    expect(outcome.attempts).toBe(1);
    expect(conflicts.count).toBe(0);
    expect(sorted(TablePositions.of((await t.load()).metadata).list)).toEqual([[0, 20n], [1, 5n]]);
  });
});
