/**
 * expire-snapshots against the SQLite catalog and local files, with a clock ten days ahead: what
 * goes (snapshots, refs past their age, the files only they reached), what stays (each branch's
 * retained ancestry, tags, the snapshots holding a pipeline's positions and checkpoint), and that
 * an unknown commit outcome deletes nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KAFKA_OFFSETS_SUMMARY_KEY, positionsToSummaryValue } from '../../../../connectors/streaming-source.js';
import { fromFileUri, toFileUri } from '../../../../connectors/storage/local-file-io.js';
import { TablePositions } from '../../../../src/engine/graph/streaming/table-positions.js';
import { CheckpointStore, checkpointSummaryKey } from '../../../../src/engine/graph/streaming/checkpoint-store.js';
import { kafkaOffsetsKey } from '../../../../src/engine/graph/streaming/offset-positions.js';
import { FLOW_PROPERTY } from '../../../../src/engine/graph/flow-summary.js';
import { CommitStateUnknownError } from '../../../../src/errors.js';
import type { Snapshot } from '../../../../src/iceberg/table-metadata.js';
import { commitSnapshot } from '../../../../src/table/commit-snapshot.js';
import { expireSnapshots } from '../../../../src/table/maintenance/expire-snapshots.js';
import { planExpiredFiles } from '../../../../src/table/maintenance/expired-files.js';
import { ANCESTRY_KEY_PREFIXES, FLOW_KEY } from '../../../../src/table/maintenance/snapshot-retention.js';
import { isDeletionVector } from '../../../../src/iceberg/data-file.js';
import { deleteWhere } from '../../../../src/table/delete-where.js';
import { liveDataFiles, liveEntries } from '../../../../src/table/scan.js';
import { CommitTestTable, ID } from '../commit-test-table.js';
import { DAY_MS, expectReachableFilesPresent, filesUnder, rowsPerSnapshot, setProperties, targetOf } from './maintenance-support.js';

let t: CommitTestTable;
const tenDaysOn = (): number => Date.now() + 10 * DAY_MS;

beforeEach(async () => {
  t = await CommitTestTable.open();
});
afterEach(async () => {
  await t.close();
});

async function appendRows(from: number, count: number, summary?: Record<string, string>): Promise<Snapshot> {
  return (await t.append(await t.writeRows(from, count), t.catalog, undefined, summary)).snapshot;
}

async function overwriteRows(from: number, count: number): Promise<Snapshot> {
  const { metadata } = await t.load();
  const result = await commitSnapshot({
    catalog: t.catalog,
    identifier: ID,
    base: { metadata, io: t.io, create: false },
    mode: 'overwrite',
    addedFiles: await t.writeRows(from, count),
  });
  return result.snapshot;
}

const pathOf = (location: string): string => fromFileUri(location);

describe('expireSnapshots', () => {
  it('expires old snapshots, deletes only the files they alone reached, and every kept snapshot still reads', async () => {
    const s1 = await appendRows(0, 10);
    const s2 = await appendRows(10, 10);
    const s1Files = await liveDataFiles(t.io, (await t.load()).metadata, s1.snapshotId);
    const s3 = await overwriteRows(100, 5);
    const s4 = await appendRows(200, 5);
    const before = filesUnder(t);

    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn }), { retainLast: 2 });

    const { metadata } = await t.load();
    expect(metadata.snapshots.map((s) => s.snapshotId)).toEqual([s3.snapshotId, s4.snapshotId]);
    expect(outcome.counts).toMatchObject({ snapshots: 2, contentFiles: 2, manifestLists: 2, filesNotDeleted: 0 });
    expect(outcome.summary).toContain('expired 2 snapshots');
    // The overwritten data files and s1/s2's manifest lists are gone…
    for (const file of s1Files) expect(existsSync(pathOf(file.filePath))).toBe(false);
    expect(existsSync(pathOf(s1.manifestList))).toBe(false);
    expect(existsSync(pathOf(s2.manifestList))).toBe(false);
    // …and every file the kept snapshots reach is there: each reads its rows.
    await expectReachableFilesPresent(t, metadata);
    expect([...(await rowsPerSnapshot(t, metadata)).values()]).toEqual([5, 10]);
    // Exactly what it counted left the disk: two data files, two manifests, two manifest lists.
    expect(outcome.counts['filesDeleted']).toBe(6);
    expect(before.filter((path) => !filesUnder(t).includes(path))).toHaveLength(6);
  });

  it('plans without changing anything on a dry run', async () => {
    await appendRows(0, 10);
    await overwriteRows(10, 10);
    const before = filesUnder(t);
    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn, dryRun: true }));
    expect(outcome).toMatchObject({ dryRun: true, counts: { snapshots: 1, contentFiles: 1, manifestLists: 1, filesDeleted: 0 } });
    expect(outcome.summary).toContain('would expire 1 snapshots');
    expect((await t.load()).metadata.snapshots).toHaveLength(2);
    expect(filesUnder(t)).toEqual(before);
  });

  it('keeps what branches and tags need, removes refs past their max age (never main), and honours ref and table settings', async () => {
    const s1 = await appendRows(0, 3);
    const s2 = await appendRows(3, 3);
    const s3 = await appendRows(6, 3);
    const s4 = await appendRows(9, 3);
    const s5 = await appendRows(12, 3);
    await t.catalog.commitTable(ID, [], [
      { action: 'set-snapshot-ref', refName: 'release', type: 'tag', snapshotId: s1.snapshotId },
      { action: 'set-snapshot-ref', refName: 'stale-tag', type: 'tag', snapshotId: s2.snapshotId, maxRefAgeMs: BigInt(DAY_MS) },
      { action: 'set-snapshot-ref', refName: 'audit', type: 'branch', snapshotId: s3.snapshotId, minSnapshotsToKeep: 2 },
      { action: 'set-snapshot-ref', refName: MAIN, type: 'branch', snapshotId: s5.snapshotId, maxRefAgeMs: 1n },
    ]);
    // The table keeps main's two newest snapshots.
    await setProperties(t, { 'history.expire.min-snapshots-to-keep': '2' });

    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn }));

    const { metadata } = await t.load();
    const kept = new Set(metadata.snapshots.map((s) => s.snapshotId));
    // release → s1; audit keeps s3 and its parent s2; main keeps s5, s4.
    expect([...kept].sort()).toEqual([s1, s2, s3, s4, s5].map((s) => s.snapshotId).sort());
    expect([...metadata.refs.keys()].sort()).toEqual(['audit', MAIN, 'release']);
    expect(outcome.counts).toMatchObject({ snapshots: 0, refs: 1 });

    // Without the table setting, main keeps only its head; audit still its two.
    await setProperties(t, { 'history.expire.min-snapshots-to-keep': '1' });
    await expireSnapshots(targetOf(t, { now: tenDaysOn }));
    const after = (await t.load()).metadata;
    expect(after.snapshots.map((s) => s.snapshotId).sort()).toEqual([s1, s2, s3, s5].map((s) => s.snapshotId).sort());
    await expectReachableFilesPresent(t, after);
    expect(Object.fromEntries(await rowsPerSnapshot(t, after))).toEqual({
      [String(s1.snapshotId)]: 3,
      [String(s2.snapshotId)]: 6,
      [String(s3.snapshotId)]: 9,
      [String(s5.snapshotId)]: 15,
    });
  });

  it('keeps the snapshots holding the newest source positions and checkpoint, and the ancestry down to them', async () => {
    const oldFolder = toFileUri(join(t.work, 'db', 't', 'thund-checkpoints', 'f', 'old'));
    const newFolder = toFileUri(join(t.work, 'db', 't', 'thund-checkpoints', 'f', 'new'));
    for (const folder of [oldFolder, newFolder]) {
      mkdirSync(pathOf(folder), { recursive: true });
      writeFileSync(join(pathOf(folder), 'checkpoint.json'), '{}');
      writeFileSync(join(pathOf(folder), 'state-0.parquet'), 'state');
    }
    const offsets = (next: number): string => positionsToSummaryValue([{ topic: 'orders', partition: 0, nextOffset: BigInt(next) }]);
    const s0 = await appendRows(0, 1, { [FLOW_PROPERTY]: 'once' });
    const s1 = await appendRows(1, 1, { [KAFKA_OFFSETS_SUMMARY_KEY]: offsets(1), [checkpointSummaryKey('f')]: oldFolder });
    const s2 = await appendRows(2, 1, { [checkpointSummaryKey('f')]: newFolder, [KAFKA_OFFSETS_SUMMARY_KEY]: offsets(2) });
    const s3 = await appendRows(3, 1, { [KAFKA_OFFSETS_SUMMARY_KEY]: offsets(3) });
    const s4 = await appendRows(4, 1);
    const s5 = await appendRows(5, 1);

    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn }));

    const { metadata } = await t.load();
    // s5 (head), s4 and s3 (newest offsets), s2 (newest checkpoint); s0 as flow `once`'s newest.
    expect(metadata.snapshots.map((s) => s.snapshotId)).toEqual([s0, s2, s3, s4, s5].map((s) => s.snapshotId));
    expect(outcome.counts).toMatchObject({ snapshots: 1, checkpoints: 1 });
    expect(TablePositions.of(metadata).of({ topic: 'orders', partition: 0 })).toBe(3n);
    expect(CheckpointStore.pointer(metadata, 'f')).toBe(newFolder);
    expect(existsSync(pathOf(oldFolder) + '/checkpoint.json')).toBe(false);
    expect(existsSync(pathOf(oldFolder) + '/state-0.parquet')).toBe(false);
    expect(existsSync(pathOf(newFolder) + '/state-0.parquet')).toBe(true);
    expect(existsSync(pathOf(s1.manifestList))).toBe(false);
    await expectReachableFilesPresent(t, metadata);
  });

  it('keeps the whole checkpoint a kept change checkpoint builds on, with the changes before it, though expired snapshots pointed to them', async () => {
    const whole = toFileUri(join(t.work, 'db', 't', 'thund-checkpoints', 'f', 'whole'));
    const [first, second] = [`${whole}/changes-1`, `${whole}/changes-2`];
    for (const folder of [whole, first, second]) {
      mkdirSync(pathOf(folder), { recursive: true });
      writeFileSync(join(pathOf(folder), 'checkpoint.json'), '{}');
      writeFileSync(join(pathOf(folder), 'state-0.parquet'), 'state');
    }
    const s0 = await appendRows(0, 1, { [checkpointSummaryKey('f')]: whole });
    const s1 = await appendRows(1, 1, { [checkpointSummaryKey('f')]: first });
    const s2 = await appendRows(2, 1, { [checkpointSummaryKey('f')]: second });
    await appendRows(3, 1);

    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn }));

    const { metadata } = await t.load();
    expect(metadata.snapshots.map((s) => s.snapshotId)).not.toContain(s0.snapshotId);
    expect(metadata.snapshots.map((s) => s.snapshotId)).not.toContain(s1.snapshotId);
    expect(CheckpointStore.pointer(metadata, 'f')).toBe(second);
    expect(outcome.counts).toMatchObject({ snapshots: 2, checkpoints: 0 });
    for (const folder of [whole, first, second]) expect(existsSync(pathOf(folder) + '/state-0.parquet')).toBe(true);
    expect(s2.snapshotId).toBe(metadata.snapshots.find((s) => s.summary[checkpointSummaryKey('f')] === second)?.snapshotId);
  });

  it('deletes the statistics files of expired snapshots, unless a kept entry still names them', async () => {
    await appendRows(0, 1);
    const { metadata } = await t.load();
    const old = { ...metadata.snapshots[0]!, snapshotId: 1n, manifestList: '', manifests: [] };
    const stats = (id: bigint, name: string): unknown => ({ 'snapshot-id': id, 'statistics-path': `s3a://b/t/metadata/${name}.stats`, 'file-size-in-bytes': 1, 'file-footer-size-in-bytes': 1, 'blob-metadata': [] });
    const before = { ...metadata, statistics: [stats(1n, 'only-old'), stats(1n, 'shared')] };
    const after = { metadata: { ...metadata, statistics: [stats(metadata.snapshots[0]!.snapshotId, 'shared')] }, snapshots: metadata.snapshots };
    const files = await planExpiredFiles(t.io, before, after, [old]);
    expect([...files.statisticsFiles.values()]).toEqual(['s3a://b/t/metadata/only-old.stats']);
  });

  it('knows every summary key the engine reads back through main’s ancestry', () => {
    const keys = [KAFKA_OFFSETS_SUMMARY_KEY, kafkaOffsetsKey('flow', 'source'), checkpointSummaryKey('flow')];
    for (const key of keys) expect(ANCESTRY_KEY_PREFIXES.some((prefix) => key.startsWith(prefix))).toBe(true);
    expect(FLOW_KEY).toBe(FLOW_PROPERTY);
  });

  it('deletes nothing when the commit outcome is unknown', async () => {
    await appendRows(0, 10);
    await overwriteRows(10, 10);
    await appendRows(20, 10);
    const before = filesUnder(t);
    const snapshotsBefore = (await t.load()).metadata.snapshots.length;
    const lost = t.catalogWith(async () => {
      throw new CommitStateUnknownError('the connection dropped after the request was sent');
    });
    await expect(expireSnapshots({ ...targetOf(t, { now: tenDaysOn }), catalog: lost })).rejects.toThrow(/outcome is unknown, so no file was deleted/);
    expect(filesUnder(t)).toEqual(before);
    expect((await t.load()).metadata.snapshots).toHaveLength(snapshotsBefore);
  });

  it('deletes a deletion vector Puffin file only once no kept snapshot’s entry points into it', async () => {
    await t.catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    await appendRows(0, 30);
    await appendRows(30, 30);
    const rowTarget = { catalog: t.catalog, identifier: ID, io: t.io, session: t.session };
    await deleteWhere(rowTarget, 'id < 5');
    const puffinOf = async (): Promise<string[]> => [...new Set((await liveEntries(t.io, (await t.load()).metadata)).map(({ entry }) => entry.dataFile).filter(isDeletionVector).map((file) => file.filePath))];
    const [first] = await puffinOf();
    // A second delete merges the first vector into a new Puffin file, which also holds the other file's vector.
    await deleteWhere(rowTarget, 'id BETWEEN 5 AND 7 OR id BETWEEN 30 AND 34');
    const second = await puffinOf();
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first);

    await expireSnapshots(targetOf(t, { now: tenDaysOn }), { retainLast: 2 });
    expect(existsSync(pathOf(first!))).toBe(true);
    await expireSnapshots(targetOf(t, { now: tenDaysOn }), { retainLast: 1 });
    expect(existsSync(pathOf(first!))).toBe(false);
    expect(existsSync(pathOf(second[0]!))).toBe(true);
    const { metadata } = await t.load();
    await expectReachableFilesPresent(t, metadata);
    expect([...(await rowsPerSnapshot(t, metadata)).values()]).toEqual([47]);
  });

  it('reads each manifest list and manifest once', async () => {
    for (let i = 0; i < 4; i += 1) await appendRows(i * 10, 10);
    await overwriteRows(100, 5);
    await appendRows(200, 5);
    const reads = new Map<string, number>();
    const counting = Object.create(t.io, {
      read: { value: (location: string) => (reads.set(location, (reads.get(location) ?? 0) + 1), t.io.read(location)) },
    }) as typeof t.io;
    const outcome = await expireSnapshots(targetOf(t, { now: tenDaysOn, io: counting }));
    expect(outcome.counts['snapshots']).toBe(5);
    expect(reads.size).toBeGreaterThan(8);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
  });

  it('refuses to delete anything of a table whose gc.enabled is false', async () => {
    await appendRows(0, 10);
    await overwriteRows(10, 10);
    await setProperties(t, { 'gc.enabled': 'false' });
    await expect(expireSnapshots(targetOf(t, { now: tenDaysOn }))).rejects.toThrow(/gc.enabled is false/);
    expect((await t.load()).metadata.snapshots).toHaveLength(2);
  });

  it('plans again when another writer commits first', async () => {
    await appendRows(0, 10);
    await overwriteRows(10, 10);
    let calls = 0;
    const raced = t.catalogWith(async (real, ...args) => {
      calls += 1;
      if (calls === 1) await appendRows(100, 1);
      return real(...args);
    });
    await expireSnapshots({ ...targetOf(t, { now: tenDaysOn }), catalog: raced });
    const { metadata } = await t.load();
    expect(calls).toBe(2);
    expect(metadata.snapshots).toHaveLength(1);
    expect([...(await rowsPerSnapshot(t, metadata)).values()]).toEqual([11]);
    await expectReachableFilesPresent(t, metadata);
  });
});

const MAIN = 'main';
