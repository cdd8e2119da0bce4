/**
 * Rewrites Parquet position delete files (Java's RewritePositionDeleteFiles), as one `replace`
 * snapshot with compaction's conflict rules (rewrite-commit.ts):
 * - v2: per partition with at least `minInputFiles` (default 2) position delete files, or with
 *   one that deletes from no live data file, they are merged into one file holding only the
 *   positions that still apply to a live data file (as scan planning applies them);
 * - v3: every data file with position deletes and no deletion vector gets a vector of them
 *   (deletion-vector-changes.ts merges them), and every live position delete file goes: a
 *   vector shadows them for the files that have one.
 */
import { DataFileContent, isDeletionVector, type DataFile } from '../../iceberg/data-file.js';
import { currentSnapshot } from '../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { quoteLiteral } from '../../duckdb/session.js';
import { writePositionDeletes, type PositionDeleteGroup } from '../../write/position-delete-writer.js';
import { liveFilesOf, partitionKey, planScan, type ScanTask } from '../delete-planning.js';
import { deletionVectorChanges } from '../deletion-vector-changes.js';
import { TableFileStaging } from '../file-staging.js';
import { dataLocation } from '../locations.js';
import { positionDeletesOf } from '../read-rows.js';
import { tempName } from '../row-operation.js';
import type { MaintenanceOutcome, MaintenanceTarget } from './maintenance-action.js';
import { commitRewrite } from './rewrite-commit.js';

export interface RewritePositionDeletesOptions {
  /** v2: position delete files a partition needs for them to be merged (default 2). */
  readonly minInputFiles?: number;
}

interface Rewrite {
  readonly added: DataFile[];
  readonly removed: DataFile[];
  readonly touched: DataFile[];
}

const WRITER = 'rewrite-position-deletes';

/** A planned rewrite with its delete files written, ready to commit (undefined: nothing to rewrite). */
export interface PreparedDeleteRewrite {
  readonly metadata: TableMetadata;
  readonly added: readonly DataFile[];
  readonly removed: readonly DataFile[];
  readonly touched: readonly DataFile[];
}

export async function rewritePositionDeletes(target: MaintenanceTarget, options: RewritePositionDeletesOptions = {}): Promise<MaintenanceOutcome> {
  const { metadata } = await target.catalog.loadTable(target.identifier);
  const selected = await selectedFiles(target, metadata, options);
  if (selected.length === 0) return outcome(target, 0, 0, `${WRITER}: nothing to rewrite`);
  if (target.dryRun) {
    return outcome(target, selected.length, 0, `${WRITER} (dry run): would rewrite ${selected.length} position delete files into ${noun(metadata)}`);
  }
  return commitDeleteRewrite(target, await rewriteSelected(target, metadata, selected));
}

/** Plans on the current table and writes the new delete files (nothing is committed). */
export async function prepareDeleteRewrite(target: MaintenanceTarget, options: RewritePositionDeletesOptions = {}): Promise<PreparedDeleteRewrite | undefined> {
  const { metadata } = await target.catalog.loadTable(target.identifier);
  const selected = await selectedFiles(target, metadata, options);
  return selected.length === 0 ? undefined : rewriteSelected(target, metadata, selected);
}

/** Commits a prepared rewrite; the files it wrote are removed when it fails, unless the outcome is unknown. */
export async function commitDeleteRewrite(target: MaintenanceTarget, prepared: PreparedDeleteRewrite): Promise<MaintenanceOutcome> {
  const { snapshot } = await commitRewrite({
    target,
    metadata: prepared.metadata,
    operation: WRITER,
    addedDataFiles: [],
    addedDeleteFiles: prepared.added,
    removedDataFiles: [],
    removedDeleteFiles: prepared.removed,
    touchedDataFiles: prepared.touched,
  });
  const summary = `${WRITER}: ${prepared.removed.length} position delete files → ${prepared.added.length} ${noun(prepared.metadata)}`;
  return { ...outcome(target, prepared.removed.length, prepared.added.length, summary), snapshotId: snapshot.snapshotId };
}

/** v3: every live position delete file; v2: those of the partitions selectV2 picks. */
async function selectedFiles(target: MaintenanceTarget, metadata: TableMetadata, options: RewritePositionDeletesOptions): Promise<DataFile[]> {
  const snapshot = currentSnapshot(metadata);
  const positionFiles = snapshot === undefined ? [] : (await liveFilesOf(target.io, snapshot)).deletes.map((live) => live.file).filter(isPositionFile);
  return metadata.formatVersion >= 3 ? positionFiles : selectV2(target, metadata, positionFiles, options.minInputFiles ?? 2);
}

async function rewriteSelected(target: MaintenanceTarget, metadata: TableMetadata, selected: readonly DataFile[]): Promise<PreparedDeleteRewrite> {
  const tasks = (await planScan(target.io, metadata)).tasks;
  if (metadata.formatVersion < 3) return { metadata, ...(await mergeV2(target, metadata, tasks, selected)) };
  const rewrite = await toDeletionVectors(target, metadata, tasks);
  // Every position delete file goes, also those a vector shadowed already.
  const removed = [...new Map([...rewrite.removed, ...selected].map((file) => [file.filePath, file])).values()];
  return { metadata, ...rewrite, removed };
}

const noun = (metadata: TableMetadata): string => (metadata.formatVersion >= 3 ? 'deletion vectors' : 'files');

function isPositionFile(file: DataFile): boolean {
  return file.content === DataFileContent.PositionDeletes && !isDeletionVector(file);
}

function outcome(target: MaintenanceTarget, filesIn: number, filesOut: number, summary: string): MaintenanceOutcome {
  return { action: 'rewrite-position-deletes', dryRun: target.dryRun, summary, counts: { deleteFilesIn: filesIn, deleteFilesOut: filesOut } };
}

/** The position delete files of partitions with enough of them, or with one that applies to no live data file. */
async function selectV2(target: MaintenanceTarget, metadata: TableMetadata, files: readonly DataFile[], minInputFiles: number): Promise<DataFile[]> {
  const applying = new Set<string>();
  for (const task of (await planScan(target.io, metadata)).tasks) for (const live of task.deletes) applying.add(live.file.filePath);
  const byPartition = new Map<string, DataFile[]>();
  for (const file of files) {
    const key = partitionKey(file.specId, file.partition);
    byPartition.set(key, [...(byPartition.get(key) ?? []), file]);
  }
  return [...byPartition.values()].filter((group) => group.length >= minInputFiles || group.some((file) => !applying.has(file.filePath))).flat();
}

/** One position delete file per selected partition, of the positions that still apply to live data files. */
async function mergeV2(target: MaintenanceTarget, metadata: TableMetadata, tasks: readonly ScanTask[], selected: readonly DataFile[]): Promise<Rewrite> {
  const { session, io } = target;
  const chosen = new Set(selected.map((file) => file.filePath));
  const positions = tempName('positions');
  const staging = new TableFileStaging(io);
  try {
    await session.run(`CREATE TEMP TABLE ${positions} (file_path VARCHAR, pos BIGINT)`);
    const groups = new Map<string, PositionDeleteGroup & { dataFilePaths: string[] }>();
    const touched: DataFile[] = [];
    for (const task of tasks) {
      const files = task.deletes.map((live) => live.file).filter((file) => chosen.has(file.filePath));
      if (files.length === 0) continue;
      const locals = await staging.localPaths(files.map((file) => file.filePath));
      const path = task.data.file.filePath;
      await session.run(`INSERT INTO ${positions} SELECT DISTINCT ${quoteLiteral(path)}, pos FROM (${positionDeletesOf(locals, path)})`);
      const key = partitionKey(task.data.file.specId, task.data.file.partition);
      const group = groups.get(key) ?? { specId: task.data.file.specId, partition: task.data.file.partition, dataFilePaths: [] };
      group.dataFilePaths.push(path);
      groups.set(key, group);
      touched.push(task.data.file);
    }
    const added = await writePositionDeletes({
      session,
      positions,
      groups: [...groups.values()],
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: WRITER,
    });
    return { added, removed: [...selected], touched };
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${positions}`).catch(() => undefined);
    await staging.close();
  }
}

/** A deletion vector for every data file whose deletes are position delete files. */
async function toDeletionVectors(target: MaintenanceTarget, metadata: TableMetadata, tasks: readonly ScanTask[]): Promise<Rewrite> {
  const withPositions = tasks.filter((task) => task.deletes.some((live) => isPositionFile(live.file)) && !task.deletes.some((live) => isDeletionVector(live.file)));
  if (withPositions.length === 0) return { added: [], removed: [], touched: [] };
  const matched = tempName('no_matches');
  try {
    await target.session.run(`CREATE TEMP TABLE ${matched} (file_path VARCHAR, pos BIGINT)`);
    // Only the positions deleted before: a task's position delete files, merged into its vector.
    const positionOnly = withPositions.map((task) => ({ ...task, deletes: task.deletes.filter((live) => isPositionFile(live.file)) }));
    const changes = await deletionVectorChanges(
      { session: target.session, io: target.io, dataLocation: dataLocation(metadata), matchedTable: matched, writerName: WRITER },
      positionOnly,
    );
    return { added: changes.addedDeleteFiles, removed: changes.removedDeleteFiles, touched: withPositions.map((task) => task.data.file) };
  } finally {
    await target.session.run(`DROP TABLE IF EXISTS ${matched}`).catch(() => undefined);
  }
}
