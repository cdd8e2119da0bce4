/**
 * remove-orphans against the SQLite catalog and local files: a crashed run's data file, manifest,
 * staging temp file and checkpoint folder go once older than the safety age; a young unreferenced
 * file stays; nothing the metadata reaches goes, however old.
 */
import { copyFileSync, existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromFileUri, LocalFileIO, toFileUri } from '../../../../connectors/storage/local-file-io.js';
import { checkpointSummaryKey } from '../../../../src/engine/graph/streaming/checkpoint-store.js';
import { locationKey } from '../../../../src/table/maintenance/location-key.js';
import { removeOrphans } from '../../../../src/table/maintenance/remove-orphans.js';
import { CommitTestTable } from '../commit-test-table.js';
import { DAY_MS, expectReachableFilesPresent, filesUnder, rowsPerSnapshot, targetOf } from './maintenance-support.js';

let t: CommitTestTable;
beforeEach(async () => {
  t = await CommitTestTable.open();
});
afterEach(async () => {
  await t.close();
});

/** Makes every file under the table look written four days ago. */
function ageEverything(): void {
  const old = new Date(Date.now() - 4 * DAY_MS);
  for (const file of filesUnder(t)) utimesSync(file, old, old);
}

describe('removeOrphans', () => {
  it('deletes a crashed run’s files older than the safety age, keeps young ones and everything reachable', async () => {
    const table = join(t.work, 'db', 't');
    const liveCheckpoint = join(table, 'thund-checkpoints', 'f', 'live');
    mkdirSync(liveCheckpoint, { recursive: true });
    writeFileSync(join(liveCheckpoint, 'checkpoint.json'), '{}');
    const files = await t.writeRows(0, 10);
    await t.append(files, t.catalog, undefined, { [checkpointSummaryKey('f')]: toFileUri(liveCheckpoint) });
    await t.append(await t.writeRows(10, 5));
    // What a crashed run leaves: a data file never committed, its manifest, a staging temp file, a checkpoint folder no snapshot points to.
    const crashed = [
      join(table, 'data', 'crashed-0.parquet'),
      join(table, 'metadata', 'crashed-m0.avro'),
      join(table, 'data', '.crashed-1.parquet.4b1c.tmp'),
      join(table, 'thund-checkpoints', 'f', 'dead', 'checkpoint.json'),
    ];
    mkdirSync(join(table, 'thund-checkpoints', 'f', 'dead'), { recursive: true });
    copyFileSync(fromFileUri(files[0]!.filePath), crashed[0]!);
    for (const path of crashed.slice(1)) writeFileSync(path, 'leftover');
    ageEverything();
    // Written just now: an in-flight commit may still reference it.
    const young = join(table, 'data', 'in-flight-0.parquet');
    writeFileSync(young, 'in flight');

    const dry = await removeOrphans(targetOf(t, { dryRun: true }));
    expect(dry.counts).toMatchObject({ orphans: 4, tooYoung: 1, filesDeleted: 0 });
    for (const path of crashed) expect(existsSync(path)).toBe(true);

    const outcome = await removeOrphans(targetOf(t));

    expect(outcome.counts).toMatchObject({ orphans: 4, tooYoung: 1, filesDeleted: 4, filesNotDeleted: 0 });
    for (const path of crashed) expect(existsSync(path)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(join(liveCheckpoint, 'checkpoint.json'))).toBe(true);
    const loaded = await t.load();
    expect(existsSync(fromFileUri(loaded.metadataLocation))).toBe(true);
    for (const entry of loaded.metadata.metadataLog) expect(existsSync(fromFileUri(entry.metadataFile))).toBe(true);
    await expectReachableFilesPresent(t, loaded.metadata);
    expect([...(await rowsPerSnapshot(t, loaded.metadata)).values()]).toEqual([10, 15]);
  });

  it('keeps the whole checkpoint and the earlier changes a live change checkpoint builds on', async () => {
    const whole = join(t.work, 'db', 't', 'thund-checkpoints', 'f', 'whole');
    const kept = [join(whole, 'checkpoint.json'), join(whole, 'changes-1', 'checkpoint.json'), join(whole, 'changes-2', 'checkpoint.json')];
    for (const path of kept) {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, '{}');
    }
    await t.append(await t.writeRows(0, 3), t.catalog, undefined, { [checkpointSummaryKey('f')]: toFileUri(join(whole, 'changes-2')) });
    ageEverything();

    const outcome = await removeOrphans(targetOf(t));

    expect(outcome.counts).toMatchObject({ orphans: 0, filesDeleted: 0 });
    for (const path of kept) expect(existsSync(path)).toBe(true);
  });

  it('honours a shorter safety age', async () => {
    await t.append(await t.writeRows(0, 3));
    const orphan = join(t.work, 'db', 't', 'data', 'orphan.parquet');
    writeFileSync(orphan, 'x');
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(orphan, hourAgo, hourAgo);
    expect((await removeOrphans(targetOf(t))).counts['orphans']).toBe(0);
    expect((await removeOrphans(targetOf(t), { olderThanMs: 60 * 1000 })).counts['filesDeleted']).toBe(1);
    expect(existsSync(orphan)).toBe(false);
  });
});

describe('locationKey', () => {
  it('spells one file one way across the schemes catalogs write', () => {
    expect(locationKey('s3a://bucket/wh/t/data/a.parquet')).toBe('s3://bucket/wh/t/data/a.parquet');
    expect(locationKey('s3n://bucket/a')).toBe('s3://bucket/a');
    expect(locationKey('s3://bucket/a//b')).toBe('s3://bucket/a//b');
    for (const spelling of ['file:/tmp/w/t/a', 'file:///tmp/w/t/a', 'file://localhost/tmp/w/t/a', '/tmp/w/t/a', 'file:///tmp/w//t/a']) {
      expect(locationKey(spelling)).toBe('file:///tmp/w/t/a');
    }
  });

  it('is how LocalFileIO lists: in the prefix’s spelling, at any depth', async () => {
    const io = new LocalFileIO();
    const root = join(t.work, 'listing');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'f.txt'), 'abc');
    writeFileSync(join(t.work, 'listing2'), 'not under the prefix');
    const listed = [];
    for await (const file of io.list(`file:${root}/`)) listed.push(file);
    expect(listed.map((f) => [f.location, f.size])).toEqual([[`file:${root}/a/b/f.txt`, 3]]);
    expect(listed[0]!.lastModifiedMs).toBeGreaterThan(Date.now() - 60_000);
  });
});
