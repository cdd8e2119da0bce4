/**
 * commitSnapshot's per-attempt hook against the real SQLite catalog: it sees the table each
 * attempt builds on (the base, then every reloaded table), its properties go into that attempt's
 * summary, and its refusal ends the commit: without a trace after a definite refusal, with every
 * file kept after a lost attempt that could still land.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitStateUnknownError } from '../../../src/errors.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import type { TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { CommitRefusal, commitSnapshot, isRefused, type AttemptSummary, type RetryCause } from '../../../src/table/commit-snapshot.js';
import type { Catalog, LoadedTable } from '../../../catalog/catalog.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { CommitTestTable, ID } from './commit-test-table.js';

let t: CommitTestTable;

beforeEach(async () => {
  t = await CommitTestTable.open();
});

afterEach(async () => {
  await t.close();
});

interface Seen {
  readonly snapshots: number;
  readonly retry: RetryCause | undefined;
}

/** A hook that records what it was shown and answers with `answer`. */
function recording<T>(answer: (current: TableMetadata, retry: RetryCause | undefined) => ReturnType<AttemptSummary<T>>): { hook: AttemptSummary<T>; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    hook: (current, retry) => {
      seen.push({ snapshots: current.snapshots.length, retry });
      return answer(current, retry);
    },
  };
}

function commit<T>(files: DataFile[], base: LoadedTable, hook: AttemptSummary<T>, via: Catalog = t.catalog) {
  return commitSnapshot({
    catalog: via,
    identifier: ID,
    base: { metadata: base.metadata, io: t.io, create: false },
    mode: 'append',
    addedFiles: files,
    summaryProperties: { 'test.writer': 'ours' },
    summaryForAttempt: hook,
  });
}

describe('commitSnapshot with a per-attempt summary hook', () => {
  it('asks again with the reloaded table after a 409, and the landed snapshot carries that attempt’s properties', async () => {
    const staleBase = await t.load();
    await t.append(await t.writeRows(0, 10));
    const { hook, seen } = recording((current) => ({ 'test.seen-snapshots': String(current.snapshots.length) }));
    const outcome = await commit(await t.writeRows(10, 5), staleBase, hook);
    if (isRefused(outcome)) throw new Error('refused');
    expect(outcome.attempts).toBe(2);
    expect(seen).toEqual([
      { snapshots: 0, retry: undefined },
      { snapshots: 1, retry: 'conflict' },
    ]);
    expect(outcome.snapshot.summary).toMatchObject({ 'test.seen-snapshots': '1', 'test.writer': 'ours', 'total-records': '15' });
    const { metadata } = await t.load();
    expect(metadata.currentSnapshotId).toBe(outcome.snapshot.snapshotId);
    expect(await t.unreferencedAvroFiles()).toEqual([]);
  });

  it('a refusal of the first attempt writes nothing and leaves the table as it was', async () => {
    const base = await t.load();
    const files = await t.writeRows(0, 4);
    const before = t.metadataFiles();
    let commits = 0;
    const counting = t.catalogWith((real, ...args) => {
      commits += 1;
      return real(...args);
    });
    const outcome = await commit(files, base, () => new CommitRefusal('not now'), counting);
    expect(outcome).toMatchObject({ kind: 'refused', detail: 'not now', attempts: 0, outcomeWasUnknown: false });
    expect(commits).toBe(0);
    expect(t.metadataFiles()).toEqual(before);
    expect((await t.load()).metadata.snapshots).toHaveLength(0);
    for (const file of files) expect(await t.io.exists(file.filePath)).toBe(true);
  });

  it('a refusal after a 409 removes the manifests and lists it wrote; the other writer’s commit stands', async () => {
    const staleBase = await t.load();
    const theirs = await t.append(await t.writeRows(0, 10));
    const files = await t.writeRows(10, 5);
    const { hook, seen } = recording((current) => (current.snapshots.length > 0 ? new CommitRefusal({ moved: true }) : {}));
    const outcome = await commit(files, staleBase, hook);
    expect(outcome).toMatchObject({ kind: 'refused', detail: { moved: true }, attempts: 1, outcomeWasUnknown: false });
    expect(seen.map((s) => s.retry)).toEqual([undefined, 'conflict']);
    const { metadata } = await t.load();
    expect(metadata.snapshots.map((s) => s.snapshotId)).toEqual([theirs.snapshot.snapshotId]);
    expect(await t.unreferencedAvroFiles()).toEqual([]);
    expect((await liveDataFiles(t.io, metadata)).reduce((n, f) => n + f.recordCount, 0n)).toBe(10n);
    // Data files are the caller's to remove.
    for (const file of files) expect(await t.io.exists(file.filePath)).toBe(true);
  });

  it('a refusal after a lost attempt keeps every file, because that attempt could still land', async () => {
    const base = await t.load();
    let calls = 0;
    // The first request is lost before the server sees it; meanwhile another writer commits.
    const losesFirst = t.catalogWith(async (real, ...args) => {
      calls += 1;
      if (calls > 1) return real(...args);
      await t.append(await t.writeRows(100, 3));
      throw new CommitStateUnknownError('connection reset before an answer');
    });
    const { hook, seen } = recording((current) => (current.snapshots.length > 0 ? new CommitRefusal('moved') : {}));
    const outcome = await commit(await t.writeRows(0, 4), base, hook, losesFirst);
    expect(outcome).toMatchObject({ kind: 'refused', detail: 'moved', attempts: 1, outcomeWasUnknown: true });
    expect(seen.map((s) => s.retry)).toEqual([undefined, 'unknown']);
    // Our manifest and manifest list are still there, unreferenced: nothing was deleted.
    expect((await t.unreferencedAvroFiles()).length).toBe(2);
    expect((await t.load()).metadata.snapshots).toHaveLength(1);
  });

  it('a lost attempt that did land is found by its snapshot id without asking the hook again', async () => {
    const base = await t.load();
    const landsThenFails = t.catalogWith(async (real, ...args) => {
      await real(...args);
      throw new CommitStateUnknownError('gateway timeout after the commit applied');
    });
    const { hook, seen } = recording(() => ({ 'test.attempt': 'first' }));
    const outcome = await commit(await t.writeRows(0, 4), base, hook, landsThenFails);
    if (isRefused(outcome)) throw new Error('refused');
    expect(seen).toHaveLength(1);
    const { metadata } = await t.load();
    expect(metadata.snapshots.map((s) => s.summary['test.attempt'])).toEqual(['first']);
  });

  it('a hook that throws on a retry removes what the commit wrote and passes the error on', async () => {
    const staleBase = await t.load();
    await t.append(await t.writeRows(0, 10));
    const hook: AttemptSummary<never> = (_current, retry) => {
      if (retry !== undefined) throw new Error('positions unreadable');
      return {};
    };
    await expect(commit(await t.writeRows(10, 5), staleBase, hook)).rejects.toThrow('positions unreadable');
    expect(await t.unreferencedAvroFiles()).toEqual([]);
    expect((await t.load()).metadata.snapshots).toHaveLength(1);
  });
});
