/**
 * What the maintenance tests share, on top of the commit tests' table (`db.t`, SQLite catalog,
 * local files): the maintenance target, table properties, every file under the table, and
 * reading every snapshot's rows back through Thund's scan.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { fromFileUri } from '../../../../connectors/storage/local-file-io.js';
import type { TableMetadata } from '../../../../src/iceberg/table-metadata.js';
import type { MaintenanceTarget } from '../../../../src/table/maintenance/maintenance-action.js';
import { ManifestCache } from '../../../../src/table/maintenance/reachable-files.js';
import { openTableRows } from '../../../../src/table/table-rows.js';
import { ID, type CommitTestTable } from '../commit-test-table.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

export function targetOf(t: CommitTestTable, overrides: Partial<MaintenanceTarget> = {}): MaintenanceTarget {
  return { catalog: t.catalog, identifier: ID, io: t.io, session: t.session, dryRun: false, ...overrides };
}

export async function setProperties(t: CommitTestTable, updates: Record<string, string>): Promise<void> {
  await t.catalog.commitTable(ID, [], [{ action: 'set-properties', updates }]);
}

/** Every file under the table's folder, as absolute paths, sorted. */
export function filesUnder(t: CommitTestTable): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(path);
    }
  };
  walk(join(t.work, 'db', 't'));
  return found.sort();
}

/** The number of rows of each snapshot, read through the scan (every data and delete file read). */
export async function rowsPerSnapshot(t: CommitTestTable, metadata: TableMetadata): Promise<Map<bigint, number>> {
  const counts = new Map<bigint, number>();
  for (const snapshot of metadata.snapshots) {
    const rows = await openTableRows({ session: t.session, io: t.io, metadata, snapshotId: snapshot.snapshotId });
    try {
      const [row] = await t.session.queryJson(`SELECT count(*)::INTEGER AS n FROM (${rows.sql})`);
      counts.set(snapshot.snapshotId, Number(row?.['n']));
    } finally {
      await rows.release();
    }
  }
  return counts;
}

/** Fails unless every file any snapshot of `metadata` reaches (as readers do: live entries) is on disk. */
export async function expectReachableFilesPresent(t: CommitTestTable, metadata: TableMetadata): Promise<void> {
  const reached = await new ManifestCache(t.io).reachableFrom(metadata.snapshots, { strict: true, liveOnly: true });
  const missing = [...reached.manifestLists.values(), ...reached.manifests.values(), ...reached.contentFiles.values()].filter((location) => {
    try {
      return !statSync(fromFileUri(location)).isFile();
    } catch {
      return true;
    }
  });
  expect(missing).toEqual([]);
}
