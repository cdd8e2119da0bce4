/**
 * Produces one snapshot (append, full overwrite, or a row delta: added data and delete files
 * and removed data files) and commits it through the catalog with
 * optimistic concurrency (spec §7.1): the snapshot id and the manifest of added files are fixed
 * across attempts; a 409 refreshes the base and rebuilds only the manifest list; an unknown
 * outcome never deletes anything and looks for our snapshot id before giving up. Our snapshot id
 * found in a reloaded table means an earlier attempt landed, whatever its answer said; our files
 * are removed only when the table is seen without it. A row delta is revalidated whenever the
 * table moved between attempts (RowDelta.validate) and refused rather than committed on a base
 * where it would be wrong. A caller whose summary depends on the table (source positions) passes a
 * per-attempt hook: it sees the table each attempt builds on and gives that attempt's summary
 * properties, or refuses, which ends the commit with a RefusedCommit outcome; a fence, checked
 * first against every table an attempt builds on, throws instead (a streaming batch whose source
 * positions moved is planned again, never rebased). A base whose current
 * snapshot lists a manifest missing from storage is refused before anything is written
 * (manifest-presence.ts): the new snapshot would carry the broken reference on.
 */
import { randomUUID } from 'node:crypto';
import type { Catalog, LoadedTable, TableIdentifier } from '../../catalog/catalog.js';
import { formatIdentifier } from '../../catalog/catalog.js';
import { CommitConflictError, CommitStateUnknownError, ConcurrentSchemaChangeError, InvalidInputError, NoSuchTableError, StalePositionsError } from '../errors.js';
import type { DataFile, ManifestFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { writeManifestList } from '../iceberg/manifest-list.js';
import { applyUpdates, updatesForCreate } from '../iceberg/metadata-builder.js';
import type { TableRequirement } from '../iceberg/requirements.js';
import { snapshotById, snapshotForRef } from '../iceberg/snapshot-ancestry.js';
import { newSnapshotId } from '../iceberg/snapshot-id.js';
import { MAIN_BRANCH, type Snapshot, type TableMetadata } from '../iceberg/table-metadata.js';
import type { TableUpdate } from '../iceberg/updates.js';
import { manifestListLocation } from './locations.js';
import { ManifestMerge, type ManifestRewrite } from './manifest-merge.js';
import { checkManifestsPresent } from './manifest-presence.js';
import { manifestsOf } from './scan.js';
import { settle, writeAddedManifests, type PendingManifest } from './pending-manifests.js';
import type { CommitNoticeKind, CommitNoticeSink } from './commit-notice.js';
import { backoffMs, retryPolicy, type RetryPolicy } from './retry-policy.js';
import { ManifestRewrites, writeRowDeltaManifests, type RowDelta } from './row-delta.js';
import { planOverwrite, summaryFor, type RemovedSet } from './snapshot-changes.js';

export type WriteMode = 'append' | 'overwrite';
/** 'replace': a row delta that rewrites files without changing the rows (compaction), committed as operation `replace`. */
export type CommitMode = WriteMode | 'row-delta' | 'replace';

/** Schema and partition spec updates committed with a snapshot, and the requirements they rest on. */
export interface LayoutChange {
  readonly updates: readonly TableUpdate[];
  readonly requirements: readonly TableRequirement[];
}

export interface SnapshotCommitRequest {
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  /** The table as loaded; for a table this commit creates, its staged metadata (`create: true`). */
  readonly base: { readonly metadata: TableMetadata; readonly io: FileIO; readonly create: boolean };
  readonly mode: CommitMode;
  /** Data files of an append or overwrite; a row delta carries its files in `rowDelta`. */
  readonly addedFiles: readonly DataFile[];
  /** Required for modes 'row-delta' and 'replace'. */
  readonly rowDelta?: RowDelta;
  /** Extra snapshot summary properties (engine name, source positions, …). */
  readonly summaryProperties?: Readonly<Record<string, string>>;
  /**
   * Schema and partition spec changes committed atomically with the snapshot, applied before it
   * (the data files already carry the new field ids and spec). A concurrent change of the schema
   * or spec refuses the commit with ConcurrentSchemaChangeError, so the caller recomputes it.
   */
  readonly layoutChange?: LayoutChange;
  /**
   * rewrite-manifests: a `replace` snapshot that adds no files and merges every small manifest
   * (manifest-merge.ts); otherwise small manifests are merged only as the table's
   * `commit.manifest-merge.*` properties say.
   */
  readonly rewriteManifests?: ManifestRewrite;
  /** Overrides the table's `commit.retry.*` properties. */
  readonly retryPolicy?: RetryPolicy;
  /**
   * Checked against the table before every attempt, the first included: throws (e.g.
   * StalePositionsError) when the table moved so that this change must not be committed on it;
   * otherwise may give summary properties for the attempt built on that table (source positions
   * merged with the ones other writers committed).
   */
  readonly fence?: CommitFence;
  /** Told about lost answers and how they were settled, 409 retries and fenced commits (commit-notice.ts). */
  readonly onNotice?: CommitNoticeSink;
}

/** See SnapshotCommitRequest.fence. */
export type CommitFence = (current: TableMetadata) => Readonly<Record<string, string>> | void;

/** Why an attempt follows another: the table moved (a refusal such as 409) or the last outcome was lost. */
export type RetryCause = 'conflict' | 'unknown';

/** Returned by a per-attempt hook to end the commit instead of attempting it; `detail` comes back in the outcome. */
export class CommitRefusal<T> {
  constructor(readonly detail: T) {}
}

/**
 * Called before every attempt with the table it builds on (the base first, then each reloaded
 * table): the summary properties of that attempt, added to `summaryProperties`, or a refusal.
 */
export type AttemptSummary<T> = (current: TableMetadata, retry: RetryCause | undefined) => Readonly<Record<string, string>> | CommitRefusal<T>;

export interface RefusedCommit<T> {
  readonly kind: 'refused';
  readonly detail: T;
  /** The table the refusal was decided on; our snapshot is not in it. */
  readonly metadata: TableMetadata;
  /** Attempts sent to the catalog before the refusal. */
  readonly attempts: number;
  /**
   * An attempt's outcome was lost: it was not in the table when looked for, but could still land,
   * so nothing was deleted (the caller keeps its data files too). Otherwise our manifests and
   * manifest lists are removed and nothing of this commit is referenced.
   */
  readonly outcomeWasUnknown: boolean;
}

export interface SnapshotCommitResult {
  readonly table: LoadedTable;
  readonly snapshot: Snapshot;
  readonly attempts: number;
}

export function isRefused<T>(outcome: SnapshotCommitResult | RefusedCommit<T>): outcome is RefusedCommit<T> {
  return 'kind' in outcome && outcome.kind === 'refused';
}

export function commitSnapshot<T>(request: SnapshotCommitRequest & { readonly summaryForAttempt: AttemptSummary<T> }): Promise<SnapshotCommitResult | RefusedCommit<T>>;
export function commitSnapshot(request: SnapshotCommitRequest): Promise<SnapshotCommitResult>;
export async function commitSnapshot<T>(
  request: SnapshotCommitRequest & { readonly summaryForAttempt?: AttemptSummary<T> },
): Promise<SnapshotCommitResult | RefusedCommit<T>> {
  const { io } = request.base;
  let metadata = request.base.metadata;
  const summaryForAttempt = request.summaryForAttempt ?? ((): Readonly<Record<string, string>> => ({}));
  const layoutChange = request.layoutChange?.updates.length === 0 ? undefined : request.layoutChange;
  const staged = (base: TableMetadata): TableMetadata => (layoutChange === undefined ? base : applyUpdates(base, layoutChange.updates));
  const snapshotId = newSnapshotId(metadata.snapshots.map((snapshot) => snapshot.snapshotId));
  const commitId = randomUUID();
  // Manifests carry the schema the data files were written with: the changed one, if any.
  const context = { io, metadata: staged(metadata), snapshotId, commitId };
  const rowDelta = rowDeltaOf(request);
  const notify = (kind: CommitNoticeKind, attempt: number, table: TableMetadata | undefined, message: string): void => {
    const tableSnapshotId = table === undefined ? undefined : mainSnapshotId(table);
    request.onNotice?.({ kind, table: formatIdentifier(request.identifier), snapshotId, ...(tableSnapshotId === undefined ? {} : { tableSnapshotId }), attempt, message });
  };
  const notifyFenced = (attempt: number, table: TableMetadata, refusal: unknown): void =>
    notify('fenced', attempt, table, `snapshot ${snapshotId} was not committed: ${refusal instanceof Error ? refusal.message : String(refusal)}`);
  const notifyApplied = (attempt: number, table: TableMetadata): void =>
    notify('unknown-outcome-applied', attempt, table, `the answer to commit attempt ${attempt} was lost or wrong; the table holds its snapshot ${snapshotId}: it was applied`);
  // Decided before anything is written: a refusal of the first attempt leaves no file behind.
  let fenced: Readonly<Record<string, string>>;
  try {
    fenced = request.fence?.(metadata) ?? {};
  } catch (refusal) {
    notifyFenced(1, metadata, refusal);
    throw refusal;
  }
  const first = summaryForAttempt(metadata, undefined);
  if (first instanceof CommitRefusal) return { kind: 'refused', detail: first.detail, metadata, attempts: 0, outcomeWasUnknown: false };
  let attemptProperties: Readonly<Record<string, string>> = first;
  // A parent's manifest list is read once: the presence check and the attempt built on it share it.
  const listedManifests = new Map<bigint, Promise<ManifestFile[]>>();
  const manifestsOfParent = (parent: Snapshot): Promise<ManifestFile[]> => {
    const listed = listedManifests.get(parent.snapshotId) ?? manifestsOf(io, parent);
    listedManifests.set(parent.snapshotId, listed);
    return listed;
  };
  const baseParent = snapshotForRef(metadata, MAIN_BRANCH);
  if (!request.base.create && baseParent !== undefined) await checkManifestsPresent(io, request.identifier, baseParent, await manifestsOfParent(baseParent));
  const rewrites = new ManifestRewrites();
  const merge = new ManifestMerge(context, request.rewriteManifests);
  const added: PendingManifest[] =
    rowDelta !== undefined
      ? await writeRowDeltaManifests(context, rowDelta)
      : request.addedFiles.length > 0
        ? await writeAddedManifests(context, request.addedFiles, 0)
        : [];
  const addedFiles = rowDelta === undefined ? request.addedFiles : [...rowDelta.addedDataFiles, ...rowDelta.addedDeleteFiles];
  const ownManifests = (removedSet: RemovedSet | undefined): string[] =>
    [...added, ...(removedSet?.manifests ?? []), ...rewrites.written()].map((pending) => pending.file.manifestPath);
  const manifestLists: string[] = [];
  const policy = request.retryPolicy ?? retryPolicy(metadata.properties);
  let outcomeWasUnknown = false;
  const started = Date.now();
  const baseMainId = mainSnapshotId(metadata);
  let removed: RemovedSet | undefined;
  /** Ends the commit with `refusal` (the table moved under it): our files go unless a lost attempt could still land. */
  const refuse = async (refusal: unknown): Promise<never> => {
    if (outcomeWasUnknown) {
      throw new CommitStateUnknownError(`The commit to ${formatIdentifier(request.identifier)} was refused after an attempt whose outcome is unknown`, {
        cause: refusal,
      });
    }
    await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
    throw refusal;
  };
  for (let attempt = 0; ; attempt += 1) {
    const parent = snapshotForRef(metadata, MAIN_BRANCH);
    // The table as this commit leaves it: a format upgrade in the layout change decides how manifests and row ids are written.
    const after = staged(metadata);
    if (request.mode === 'overwrite') {
      removed = await planOverwrite({ ...context, metadata: after }, parent, removed, attempt);
    } else if (rowDelta !== undefined) {
      try {
        removed = await rewrites.plan({ ...context, metadata: after }, parent, [...rowDelta.removedDataFiles, ...rowDelta.removedDeleteFiles]);
      } catch (error) {
        await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
        throw error;
      }
    }
    const sequenceNumber = metadata.lastSequenceNumber + 1n;
    const manifests: ManifestFile[] = await merge.apply(
      after,
      sequenceNumber,
      [...added, ...(removed?.manifests ?? [])].map((pending) => settle(pending, sequenceNumber)),
      removed?.kept ?? (parent === undefined ? [] : await manifestsOfParent(parent)),
    );
    const manifestList = manifestListLocation(metadata, snapshotId, attempt, commitId);
    const firstRowId = after.formatVersion === 3 ? (after.nextRowId ?? 0n) : undefined;
    const list = writeManifestList({
      manifests,
      snapshotId,
      ...(parent === undefined ? {} : { parentSnapshotId: parent.snapshotId }),
      sequenceNumber,
      formatVersion: after.formatVersion === 3 ? 3 : 2,
      ...(firstRowId === undefined ? {} : { firstRowId }),
    });
    await io.writeNew(manifestList, list.bytes);
    manifestLists.push(manifestList);
    const snapshot: Snapshot = {
      snapshotId,
      ...(parent === undefined ? {} : { parentSnapshotId: parent.snapshotId }),
      sequenceNumber,
      timestampMs: BigInt(Math.max(Date.now(), Number(metadata.lastUpdatedMs))),
      manifestList,
      summary: summaryFor(request.rewriteManifests !== undefined ? 'replace' : request.mode, addedFiles, removed, parent, {
        ...request.summaryProperties,
        ...fenced,
        ...attemptProperties,
        ...(request.rewriteManifests !== undefined ? merge.summary() : {}),
      }),
      schemaId: after.currentSchemaId,
      ...(firstRowId === undefined ? {} : { firstRowId, addedRows: list.addedRows ?? 0n }),
    };
    try {
      const table = await request.catalog.commitTable(
        request.identifier,
        [...requirementsFor(request.base.create, metadata), ...(layoutChange?.requirements ?? [])],
        [...(request.base.create ? updatesForCreate(metadata) : []), ...(layoutChange?.updates ?? []), ...snapshotUpdates(snapshot)],
      );
      const used = new Set((removed?.manifests ?? []).map((pending) => pending.file.manifestPath));
      const unusedRewrites = rewrites.written().map((pending) => pending.file.manifestPath).filter((path) => !used.has(path));
      await deleteQuietly(io, [...manifestLists.filter((path) => path !== manifestList), ...unusedRewrites, ...merge.unused(manifests)]);
      return { table, snapshot, attempts: attempt + 1 };
    } catch (error) {
      const retry = attempt + 1;
      const withinBudget = retry <= policy.numRetries && Date.now() - started <= policy.totalTimeoutMs;
      let reloaded: LoadedTable;
      if (error instanceof CommitStateUnknownError) {
        const found = await lookForSnapshot(request, snapshotId);
        if (found.state === 'committed') {
          notifyApplied(retry, found.table.metadata);
          return await landed(io, found, manifestLists, attempt);
        }
        // Not there (yet): retrying with the same snapshot id is safe. Should the lost request
        // land later, one of the two fails its requirements and the next lookup finds ours.
        if (found.state !== 'absent' || !withinBudget || request.base.create) {
          const why = found.state === 'absent' ? `the table lacks snapshot ${snapshotId} so far, and no attempt is left` : `the table could not be read to look for snapshot ${snapshotId}`;
          notify('unknown-outcome-unresolved', retry, found.state === 'absent' ? found.table.metadata : undefined, `the answer to commit attempt ${retry} was lost; ${why}: the outcome stays unknown, the next run starts from what the table holds`);
          throw error;
        }
        notify('unknown-outcome-not-applied', retry, found.table.metadata, `the answer to commit attempt ${retry} was lost; the table lacks its snapshot ${snapshotId} (current snapshot ${mainSnapshotId(found.table.metadata) ?? 'none'}): trying again with the same snapshot id`);
        outcomeWasUnknown = true;
        await sleep(backoffMs(policy, retry));
        reloaded = found.table;
      } else {
        const retryable = error instanceof CommitConflictError && error.retryable && !request.base.create;
        if (!retryable || !withinBudget) {
          // A refusal can follow an attempt that did land (a gateway answering 409 for a commit the
          // server applied): our files are deleted only once the table is known to lack our snapshot.
          const found = await lookForSnapshot(request, snapshotId);
          if (found.state === 'committed') {
            notifyApplied(retry, found.table.metadata);
            return await landed(io, found, manifestLists, attempt);
          }
          if (found.state === 'absent' || found.state === 'missing-table') {
            await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
          }
          // Another writer created the table first. A fenced change is a planned batch: planned
          // again on that table, not failed, whether the other writer moved its positions (the
          // fence throws) or only others (another process of a consumer group: it still applies,
          // but was written for a table that did not exist).
          if (request.base.create && found.state === 'absent' && request.fence !== undefined) {
            try {
              request.fence(found.table.metadata);
            } catch (refusal) {
              notifyFenced(retry, found.table.metadata, refusal);
              throw refusal;
            }
            notifyFenced(retry, found.table.metadata, 'the table was created by another writer at the same time');
            throw new StalePositionsError(`${formatIdentifier(request.identifier)} was created by another writer at the same time; the batch is planned again on that table`, {
              cause: error,
              context: { table: formatIdentifier(request.identifier) },
            });
          }
          throw conflictMessage(request, error);
        }
        await sleep(backoffMs(policy, retry));
        reloaded = await request.catalog.loadTable(request.identifier);
        const ours = snapshotById(reloaded.metadata, snapshotId);
        if (ours !== undefined) {
          notifyApplied(retry, reloaded.metadata);
          return await landed(io, { state: 'committed', table: reloaded, snapshot: ours }, manifestLists, attempt);
        }
      }
      const attemptBase = metadata;
      metadata = reloaded.metadata;
      if (metadata.tableUuid !== request.base.metadata.tableUuid) {
        await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
        throw new CommitConflictError(`Table ${formatIdentifier(request.identifier)} was replaced by another table during the commit`, {
          retryable: false,
        });
      }
      // Before the other checks: a batch whose positions moved is planned again, whatever else changed.
      try {
        fenced = request.fence?.(metadata) ?? {};
      } catch (refusal) {
        notifyFenced(retry + 1, metadata, refusal);
        await refuse(refusal);
      }
      if (layoutChange !== undefined && layoutMoved(attemptBase, metadata)) {
        await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
        throw new ConcurrentSchemaChangeError(
          `The schema or partition spec of ${formatIdentifier(request.identifier)} was changed by another writer during the commit; nothing was committed`,
          { context: { table: formatIdentifier(request.identifier) } },
        );
      }
      if (rowDelta !== undefined && mainSnapshotId(metadata) !== mainSnapshotId(attemptBase)) {
        try {
          await rowDelta.validate(attemptBase, metadata);
        } catch (refusal) {
          // Our snapshot is not in the reloaded table (checked above): nothing references our manifests.
          await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
          throw refusal;
        }
      }
      if (request.mode === 'overwrite' && mainSnapshotId(metadata) !== baseMainId) {
        await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
        throw new CommitConflictError(
          `Table ${formatIdentifier(request.identifier)} changed while it was being overwritten; nothing was committed, run again`,
          { retryable: false },
        );
      }
      const cause: RetryCause = error instanceof CommitStateUnknownError ? 'unknown' : 'conflict';
      let next: Readonly<Record<string, string>> | CommitRefusal<T>;
      try {
        next = summaryForAttempt(metadata, cause);
      } catch (hookError) {
        return await refuse(hookError);
      }
      if (next instanceof CommitRefusal) {
        // The reloaded table lacks our snapshot (checked above); a lost attempt could still land, though.
        if (!outcomeWasUnknown) await deleteQuietly(io, [...ownManifests(removed), ...manifestLists]);
        return { kind: 'refused', detail: next.detail, metadata, attempts: attempt + 1, outcomeWasUnknown };
      }
      if (cause === 'conflict') {
        notify('conflict-retry', retry, metadata, `commit attempt ${retry} of snapshot ${snapshotId} was refused: the table moved to snapshot ${mainSnapshotId(metadata) ?? 'none'}; trying again on it`);
      }
      attemptProperties = next;
    }
  }
}

type SnapshotLookup =
  | { readonly state: 'committed'; readonly table: LoadedTable; readonly snapshot: Snapshot }
  | { readonly state: 'absent'; readonly table: LoadedTable }
  | { readonly state: 'missing-table' }
  | { readonly state: 'unknown' };

/** Whether the table holds our snapshot id; 'unknown' when the table cannot be loaded. */
async function lookForSnapshot(request: SnapshotCommitRequest, snapshotId: bigint): Promise<SnapshotLookup> {
  let table: LoadedTable;
  try {
    table = await request.catalog.loadTable(request.identifier);
  } catch (error) {
    return error instanceof NoSuchTableError ? { state: 'missing-table' } : { state: 'unknown' };
  }
  const snapshot = snapshotById(table.metadata, snapshotId);
  return snapshot === undefined ? { state: 'absent', table } : { state: 'committed', table, snapshot };
}

/**
 * An earlier attempt landed although its answer said otherwise. The table holds the snapshot id
 * once, so the other attempts' manifest lists can never be referenced and are removed.
 */
async function landed(
  io: FileIO,
  found: Extract<SnapshotLookup, { state: 'committed' }>,
  manifestLists: readonly string[],
  attempt: number,
): Promise<SnapshotCommitResult> {
  await deleteQuietly(io, manifestLists.filter((path) => path !== found.snapshot.manifestList));
  return { table: found.table, snapshot: found.snapshot, attempts: attempt + 1 };
}

function rowDeltaOf(request: SnapshotCommitRequest): RowDelta | undefined {
  if (request.mode !== 'row-delta' && request.mode !== 'replace') return undefined;
  if (request.rowDelta === undefined || request.addedFiles.length > 0 || request.base.create) {
    throw new InvalidInputError('A row-delta commit needs an existing table and carries its files in rowDelta only');
  }
  return request.rowDelta;
}

function requirementsFor(create: boolean, metadata: TableMetadata): TableRequirement[] {
  if (create) return [{ type: 'assert-create' }];
  return [
    { type: 'assert-table-uuid', uuid: metadata.tableUuid },
    { type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, snapshotId: mainSnapshotId(metadata) ?? null },
  ];
}

function snapshotUpdates(snapshot: Snapshot): TableUpdate[] {
  return [
    { action: 'add-snapshot', snapshot },
    { action: 'set-snapshot-ref', refName: MAIN_BRANCH, type: 'branch', snapshotId: snapshot.snapshotId },
  ];
}

function layoutMoved(before: TableMetadata, after: TableMetadata): boolean {
  return (
    before.currentSchemaId !== after.currentSchemaId ||
    before.lastColumnId !== after.lastColumnId ||
    before.defaultSpecId !== after.defaultSpecId ||
    before.lastPartitionId !== after.lastPartitionId
  );
}

function mainSnapshotId(metadata: TableMetadata): bigint | undefined {
  return metadata.refs.get(MAIN_BRANCH)?.snapshotId;
}

function conflictMessage(request: SnapshotCommitRequest, error: unknown): unknown {
  if (!(error instanceof CommitConflictError)) return error;
  const what = request.base.create ? 'was created by another writer at the same time' : 'kept changing under concurrent commits';
  return new CommitConflictError(
    `Commit to ${formatIdentifier(request.identifier)} failed: the table ${what}; nothing was committed (${error.message})`,
    { retryable: false, cause: error },
  );
}

async function deleteQuietly(io: FileIO, locations: readonly string[]): Promise<void> {
  await Promise.all(locations.map((location) => io.delete(location).catch(() => undefined)));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
