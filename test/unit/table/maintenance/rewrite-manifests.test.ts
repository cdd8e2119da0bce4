/**
 * rewrite-manifests and the manifest merge of ordinary commits, against the SQLite catalog and
 * local files: many small manifests become few, every snapshot reads the same rows before and
 * after, entries keep their snapshot ids and sequence numbers, and a streaming-like table of
 * hundreds of appends holds a bounded number of manifests unless merging is disabled.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestContent, ManifestEntryStatus, type DataFile } from '../../../../src/iceberg/data-file.js';
import { currentSnapshot } from '../../../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../../../src/table/delete-where.js';
import { rewriteManifests } from '../../../../src/table/maintenance/rewrite-manifests.js';
import { liveEntries, manifestsOf } from '../../../../src/table/scan.js';
import { assignFreshIds } from '../../../../src/iceberg/schema.js';
import { currentSchema as schemaOf } from '../../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../../src/table/locations.js';
import { writeDataFiles } from '../../../../src/write/data-file-writer.js';
import { CommitTestTable, ID } from '../commit-test-table.js';
import { expectReachableFilesPresent, rowsPerSnapshot, setProperties, targetOf } from './maintenance-support.js';

let t: CommitTestTable;
beforeEach(async () => {
  t = await CommitTestTable.open();
});
afterEach(async () => {
  await t.close();
});

async function manifestCount(): Promise<number> {
  const snapshot = currentSnapshot((await t.load()).metadata);
  return snapshot === undefined ? 0 : (await manifestsOf(t.io, snapshot)).length;
}

/** Snapshot id and sequence numbers of each live data or delete file, by path. */
async function entryIdentities(): Promise<Record<string, string>> {
  const identities: Record<string, string> = {};
  for (const { entry } of await liveEntries(t.io, (await t.load()).metadata)) {
    // v3: the first row id too, so the rows keep their _row_id.
    identities[`${entry.dataFile.filePath}#${String(entry.dataFile.contentOffset ?? '')}`] =
      `${entry.snapshotId}/${entry.sequenceNumber}/${entry.fileSequenceNumber}/${String(entry.dataFile.firstRowId)}`;
  }
  return identities;
}

describe('rewriteManifests', () => {
  it.each([2, 3])('merges many small manifests into one per content, keeping every entry’s identity and every snapshot’s rows (v%i)', async (formatVersion) => {
    if (formatVersion === 3) await t.catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    for (let i = 0; i < 12; i += 1) await t.append(await t.writeRows(i * 10, 10));
    await deleteWhere({ catalog: t.catalog, identifier: ID, io: t.io, session: t.session }, 'id % 10 = 0');
    expect(await manifestCount()).toBe(13);
    const identities = await entryIdentities();
    const rowsBefore = await rowsPerSnapshot(t, (await t.load()).metadata);

    const dry = await rewriteManifests(targetOf(t, { dryRun: true }));
    expect(dry.counts).toMatchObject({ manifests: 13, manifestsReplaced: 12 });
    expect(await manifestCount()).toBe(13);

    const outcome = await rewriteManifests(targetOf(t));

    const { metadata } = await t.load();
    const head = currentSnapshot(metadata)!;
    expect(outcome.snapshotId).toBe(head.snapshotId);
    expect(head.summary).toMatchObject({ operation: 'replace', 'manifests-created': '1', 'manifests-replaced': '12', 'manifests-kept': '1', 'total-records': '120' });
    expect(head.summary['added-data-files']).toBeUndefined();
    const manifests = await manifestsOf(t.io, head);
    expect(manifests.map((m) => m.content).sort()).toEqual([ManifestContent.Data, ManifestContent.Deletes]);
    expect(manifests.find((m) => m.content === ManifestContent.Data)).toMatchObject({ existingFilesCount: 12, addedFilesCount: 0 });
    expect(await entryIdentities()).toEqual(identities);
    // Every earlier snapshot still reads as before (time travel), and the new one as its parent.
    const rowsAfter = await rowsPerSnapshot(t, metadata);
    for (const [id, rows] of rowsBefore) expect(rowsAfter.get(id)).toBe(rows);
    expect(rowsAfter.get(head.snapshotId)).toBe(108);
    await expectReachableFilesPresent(t, metadata);

    // Nothing left to merge: no new snapshot.
    expect((await rewriteManifests(targetOf(t))).snapshotId).toBeUndefined();
  });

  it('clusters the entries by partition', async () => {
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'label', required: false, type: primitive('string') },
    ]);
    const partitioned = { namespace: ['db'], name: 'p' };
    const spec = { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'label', transform: 'identity' }] };
    await t.catalog.createTable(partitioned, { schema: { schemaId: 0, identifierFieldIds: [], fields }, partitionSpec: spec });
    // Twelve commits, partitions interleaved: p0, p1, p2, p0, …
    for (let i = 0; i < 12; i += 1) {
      const { metadata } = await t.catalog.loadTable(partitioned);
      const label = `p${i % 3}`;
      const written = await writeDataFiles({
        session: t.session,
        query: `SELECT ${i}::BIGINT AS id, '${label}' AS label`,
        schema: schemaOf(metadata),
        specId: 0,
        dataLocation: dataLocation(metadata),
        io: t.io,
        properties: metadata.properties,
        writerName: 'test',
      });
      const files = written.map((file) => ({ ...file, partition: new Map([[1000, label]]) }));
      await commitSnapshot({ catalog: t.catalog, identifier: partitioned, base: { metadata, io: t.io, create: false }, mode: 'append', addedFiles: files });
    }
    const before = await manifestsOf(t.io, currentSnapshot((await t.catalog.loadTable(partitioned)).metadata)!);
    const bytes = before.reduce((total, m) => total + Number(m.manifestLength), 0);
    // Room for four entries a manifest: three manifests, one partition each.
    await rewriteManifests({ ...targetOf(t), identifier: partitioned }, { targetSizeBytes: Math.ceil(bytes / 3) + 1 });
    const { metadata } = await t.catalog.loadTable(partitioned);
    const labelsByManifest = new Map<string, Set<unknown>>();
    for (const { manifest, entry } of await liveEntries(t.io, metadata)) {
      labelsByManifest.set(manifest.manifestPath, (labelsByManifest.get(manifest.manifestPath) ?? new Set()).add(entry.dataFile.partition.get(1000)));
    }
    expect([...labelsByManifest.values()].map((labels) => [...labels])).toEqual([['p0'], ['p1'], ['p2']]);
  });

  it('rolls the merged entries into manifests of the target size', async () => {
    for (let i = 0; i < 8; i += 1) await t.append(await t.writeRows(i * 10, 10));
    const oneManifest = (await manifestsOf(t.io, currentSnapshot((await t.load()).metadata)!))[0]!;
    const outcome = await rewriteManifests(targetOf(t), { targetSizeBytes: Number(oneManifest.manifestLength) * 3 });
    expect(outcome.counts['manifestsReplaced']).toBe(8);
    expect(outcome.counts['manifestsAfter']).toBeGreaterThan(1);
    expect(outcome.counts['manifestsAfter']).toBeLessThan(8);
    expect([...(await rowsPerSnapshot(t, (await t.load()).metadata)).values()].at(-1)).toBe(80);
  });
});

describe('manifest merging on every commit', () => {
  const appendMany = async (count: number, file: readonly DataFile[]): Promise<void> => {
    for (let i = 0; i < count; i += 1) await t.append([...file]);
  };

  it('keeps a table of 300 appends at a bounded number of manifests', async () => {
    await setProperties(t, { 'commit.manifest.min-count-to-merge': '10' });
    const file = await t.writeRows(0, 2);
    await appendMany(300, file);
    const count = await manifestCount();
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(10);
    const { metadata } = await t.load();
    const head = currentSnapshot(metadata)!;
    expect(head.summary['total-records']).toBe('600');
    const live = await liveEntries(t.io, metadata);
    expect(live).toHaveLength(300);
    // Each entry keeps the snapshot that added it.
    expect(new Set(live.map(({ entry }) => entry.snapshotId)).size).toBe(300);
    // Merged entries are EXISTING; only the manifests written since the last merge hold ADDED ones.
    expect(live.filter(({ entry }) => entry.status === ManifestEntryStatus.Added)).toHaveLength(count - 1);
    await expectReachableFilesPresent(t, metadata);
    expect((await rowsPerSnapshot(t, { ...metadata, snapshots: [head] })).get(head.snapshotId)).toBe(600);
  }, 240_000);

  it('merges again on the moved table when a commit retries, and leaves no unused merge behind', async () => {
    await setProperties(t, { 'commit.manifest.min-count-to-merge': '3' });
    const file = await t.writeRows(0, 2);
    await appendMany(2, file);
    const stale = await t.load();
    await appendMany(1, file);
    const late = await t.append([...file], t.catalog, stale);
    expect(late.attempts).toBe(2);
    expect(await manifestCount()).toBe(2);
    expect(await t.unreferencedAvroFiles()).toEqual([]);
    expect(currentSnapshot((await t.load()).metadata)!.summary['total-records']).toBe('8');
    expect((await liveEntries(t.io, (await t.load()).metadata))).toHaveLength(4);
  });

  it('does not merge with commit.manifest-merge.enabled=false', async () => {
    await setProperties(t, { 'commit.manifest.min-count-to-merge': '10', 'commit.manifest-merge.enabled': 'false' });
    const file = await t.writeRows(0, 2);
    await appendMany(300, file);
    expect(await manifestCount()).toBe(300);
  }, 240_000);
});
