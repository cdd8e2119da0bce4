/**
 * Compaction (bin-pack): the partitions compaction-plan.ts picks are rewritten into files of
 * the target size holding only their live rows (every delete that covers them applied by the
 * scan), sorted by the table's sort order when it has one, with v3 row lineage kept; the delete
 * files left without anything to delete go in the same `replace` snapshot. The new files carry
 * the data sequence number of the snapshot the plan read (Java's RewriteFiles with the starting
 * sequence number), so equality deletes committed after it still apply to their rows.
 *
 * prepareCompaction (plan and write) and commitCompaction are apart so a caller can see what
 * was committed in between handled: appends survive, a delete touching a rewritten file ends in
 * a CompactionConflictError and the files written are removed.
 */
import type { DataFile } from '../../iceberg/data-file.js';
import { partitionPath } from '../../iceberg/partition-values.js';
import { currentSchema, defaultSortOrder, defaultSpec, specById } from '../../iceberg/snapshot-ancestry.js';
import { writeDataFiles } from '../../write/data-file-writer.js';
import { writePartitionedDataFiles } from '../../write/partitioned-data-file-writer.js';
import { partitionLayout } from '../../write/partition-keys.js';
import { stagedFileLocation } from '../../write/staged-files.js';
import { dataLocation } from '../locations.js';
import { openLiveRows } from '../read-rows.js';
import { rewriteProjection } from '../row-changes.js';
import { removeQuietly } from '../row-operation.js';
import { formatBytes } from './byte-size.js';
import { planCompaction, type CompactionPlan, type CompactOptions, type FileGroup } from './compaction-plan.js';
import { danglingDeletes } from './dangling-deletes.js';
import type { MaintenanceOutcome, MaintenanceTarget } from './maintenance-action.js';
import { commitRewrite } from './rewrite-commit.js';
import { sortClause } from './sort-clause.js';

export type { CompactOptions } from './compaction-plan.js';

/** A planned compaction with its files written, ready to commit. */
export interface PreparedCompaction {
  readonly plan: CompactionPlan;
  readonly addedDataFiles: readonly DataFile[];
  readonly removedDataFiles: readonly DataFile[];
  readonly removedDeleteFiles: readonly DataFile[];
}

export async function compact(target: MaintenanceTarget, options: CompactOptions = {}): Promise<MaintenanceOutcome> {
  if (target.dryRun) {
    const { metadata } = await target.catalog.loadTable(target.identifier);
    return dryRunOutcome(await planCompaction(target.io, metadata, options));
  }
  const prepared = await prepareCompaction(target, options);
  if (prepared.plan.groups.length === 0) return nothingToDo();
  return commitCompaction(target, prepared);
}

/** Plans on the current table and writes the new files (nothing is committed). */
export async function prepareCompaction(target: MaintenanceTarget, options: CompactOptions = {}): Promise<PreparedCompaction> {
  const { metadata } = await target.catalog.loadTable(target.identifier);
  const plan = await planCompaction(target.io, metadata, options);
  const addedDataFiles: DataFile[] = [];
  try {
    for (const group of plan.groups) addedDataFiles.push(...(await rewriteGroup(target, plan, group)));
    const rewritten = plan.groups.flatMap((group) => group.tasks);
    const rewrittenPaths = new Set(rewritten.map((task) => task.data.file.filePath));
    const remaining = plan.tasks.filter((task) => !rewrittenPaths.has(task.data.file.filePath));
    const removedDeleteFiles = await danglingDeletes({ session: target.session, io: target.io, metadata, rewritten, remaining });
    return { plan, addedDataFiles, removedDataFiles: rewritten.map((task) => task.data.file), removedDeleteFiles };
  } catch (error) {
    await removeQuietly(target.io, addedDataFiles);
    throw error;
  }
}

/** Commits a prepared compaction; the files it wrote are removed when it fails, unless the outcome is unknown. */
export async function commitCompaction(target: MaintenanceTarget, prepared: PreparedCompaction): Promise<MaintenanceOutcome> {
  const { plan } = prepared;
  const { snapshot } = await commitRewrite({
    target,
    metadata: plan.metadata,
    operation: 'compact',
    addedDataFiles: prepared.addedDataFiles,
    addedDeleteFiles: [],
    removedDataFiles: prepared.removedDataFiles,
    removedDeleteFiles: prepared.removedDeleteFiles,
    touchedDataFiles: prepared.removedDataFiles,
    ...(plan.snapshot === undefined ? {} : { dataSequenceNumber: plan.snapshot.sequenceNumber }),
  });
  const bytesIn = plan.groups.reduce((sum, group) => sum + group.bytes, 0n);
  const bytesOut = prepared.addedDataFiles.reduce((sum, file) => sum + file.fileSizeInBytes, 0n);
  const counts = {
    partitions: plan.groups.length,
    dataFilesIn: prepared.removedDataFiles.length,
    bytesIn: Number(bytesIn),
    dataFilesOut: prepared.addedDataFiles.length,
    bytesOut: Number(bytesOut),
    rowsOut: Number(prepared.addedDataFiles.reduce((sum, file) => sum + file.recordCount, 0n)),
    deleteFilesRemoved: prepared.removedDeleteFiles.length,
  };
  const deletes = counts.deleteFilesRemoved === 0 ? '' : `, ${counts.deleteFilesRemoved} delete files removed`;
  return {
    action: 'compact',
    dryRun: false,
    summary:
      `compact: ${counts.dataFilesIn} files (${formatBytes(bytesIn)}) → ${counts.dataFilesOut} files (${formatBytes(bytesOut)}) ` +
      `in ${partitions(counts.partitions)}${deletes}`,
    counts,
    snapshotId: snapshot.snapshotId,
  };
}

/**
 * One partition's live rows, sorted by the table's sort order, as files of the target size. A
 * group of the current spec keeps its tuple (one COPY rolling at the target size, into the
 * partition's folder); a group of an older spec is partitioned again by the current spec.
 */
async function rewriteGroup(target: MaintenanceTarget, plan: CompactionPlan, group: FileGroup): Promise<DataFile[]> {
  const { session, io } = target;
  const { metadata } = plan;
  const { lineage, columns, schema } = rewriteProjection(metadata, 'r');
  const order = sortClause(defaultSortOrder(metadata), currentSchema(metadata), 'r');
  const rows = await openLiveRows({ session, io, schema: currentSchema(metadata), tasks: group.tasks, lineage });
  try {
    const query = `SELECT ${columns.join(', ')} FROM (${rows.sql}) r${order === undefined ? '' : ` ORDER BY ${order}`}`;
    const common = { session, query, schema, io, writerName: 'compact' };
    const properties = { ...metadata.properties, 'write.target-file-size-bytes': String(plan.targetFileSizeBytes) };
    if (group.specId !== metadata.defaultSpecId) {
      return await writePartitionedDataFiles({ ...common, spec: defaultSpec(metadata), dataLocation: dataLocation(metadata), properties });
    }
    const spec = specById(metadata, group.specId)!;
    const layout = partitionLayout(spec, currentSchema(metadata));
    const folder = layout.fields.length === 0 ? dataLocation(metadata) : stagedFileLocation(dataLocation(metadata), partitionPath(layout.fields, group.partition));
    const files = await writeDataFiles({ ...common, specId: group.specId, dataLocation: folder, properties });
    return files.map((file) => ({ ...file, partition: group.partition }));
  } finally {
    await rows.release();
  }
}

function dryRunOutcome(plan: CompactionPlan): MaintenanceOutcome {
  const files = plan.groups.reduce((sum, group) => sum + group.tasks.length, 0);
  const bytes = plan.groups.reduce((sum, group) => sum + group.bytes, 0n);
  const estimated = plan.groups.reduce((sum, group) => sum + group.estimatedFiles, 0);
  const summary =
    plan.groups.length === 0
      ? 'compact (dry run): nothing to compact'
      : `compact (dry run): would rewrite ${files} files (${formatBytes(bytes)}) in ${partitions(plan.groups.length)} into about ${estimated} files of ${formatBytes(plan.targetFileSizeBytes)}`;
  return {
    action: 'compact',
    dryRun: true,
    summary,
    counts: { partitions: plan.groups.length, dataFilesIn: files, bytesIn: Number(bytes), estimatedFilesOut: estimated },
  };
}

function nothingToDo(): MaintenanceOutcome {
  return { action: 'compact', dryRun: false, summary: 'compact: nothing to compact', counts: { partitions: 0, dataFilesIn: 0, dataFilesOut: 0 } };
}

const partitions = (n: number): string => `${n} partition${n === 1 ? '' : 's'}`;
