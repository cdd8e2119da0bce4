/**
 * A streaming flow's checkpoint: its operators' state tables (Parquet, state-checkpoint.ts) and its
 * source positions, in a new folder `<table location>/thund-checkpoints/<flow>/<uuid>/` written
 * through the table's FileIO (so S3 works), and pointed to by the snapshot summary key
 * `thund.checkpoint.<flow>` of the commit that lands the same batch. `checkpoint.json` is written
 * last and lists the other files. When the operators can tell a batch's changes, its checkpoint
 * holds only them, in a folder inside the whole checkpoint it builds on (checkpoint-layout.ts), and
 * a restore replays the chain in order. A folder no snapshot points to (a crash before the commit)
 * is never read; the previous folder is deleted only after the commit that replaces it, and a
 * whole one only once a commit no longer builds on it. Folders are named `<pid>-<host>-<uuid>`
 * (owned-folders.ts), so a later run can remove what a crashed one left behind without touching a
 * live run's (removeLeftovers).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../../errors.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { ancestorsOf } from '../../../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type TableMetadata } from '../../../iceberg/table-metadata.js';
import { exportChanges, exportState, importChanges, importState, type StatefulOperator } from '../../operators/state-checkpoint.js';
import { changesCheckpointLocation, checkpointFolderOf, wholeCheckpointLocation } from '../../../table/checkpoint-layout.js';
import { isAbandoned, lastModified, ownedName, ownerOf } from '../../../write/owned-folders.js';

export const checkpointSummaryKey = (flowName: string): string => `thund.checkpoint.${flowName}`;

const CHECKPOINT_FILE = 'checkpoint.json';

export const CHECKPOINT = z.object({
  version: z.literal(1),
  flow: z.string(),
  /** Micro-batches committed so far by this flow. */
  batches: z.number().int().nonnegative(),
  /** Per streamed source (by name): the files already processed. */
  positions: z.record(z.string(), z.array(z.string())),
  /** Per Kafka source (by name): per topic, per partition, the next offset to read (int64 as decimal text). */
  offsets: z.record(z.string(), z.record(z.string(), z.record(z.string().regex(/^\d{1,10}$/), z.string().regex(/^\d{1,19}$/)))).optional(),
  /** The state files beside checkpoint.json. */
  stateFiles: z.array(z.string()),
  /** Rows of the state tables in the whole checkpoint this one is or builds on (absent before checkpoints of changes existed). */
  wholeRows: z.number().int().nonnegative().optional(),
  /**
   * A checkpoint of one batch's changes (its state files are the operators' lastChanges): the
   * checkpoints replayed before it, the whole one first, and the rows they and it changed.
   */
  changesOn: z.object({ chain: z.array(z.string()).min(1), changedRows: z.number().int().nonnegative() }).optional(),
});

export type Checkpoint = z.infer<typeof CHECKPOINT>;

export interface SavedCheckpoint {
  readonly location: string;
  readonly files: readonly string[];
  /** What a checkpoint of the next batch's changes builds on; absent: the next checkpoint is whole. */
  readonly chainable?: CheckpointChain;
}

interface CheckpointChain {
  /** The checkpoints a restore reads, the whole one first, this one last. */
  readonly chain: readonly string[];
  readonly wholeRows: number;
  readonly changedRows: number;
  /**
   * Rows the changes of the batch that saved it held, when known: a next batch that changes as
   * many would not fit within the whole state, so its checkpoint is whole without writing its
   * changes first only to drop them.
   */
  readonly lastChangedRows?: number;
}

/**
 * The longest chain (a whole checkpoint and the checkpoints of changes replayed on it); past it,
 * or once the changes hold more rows than the whole state, the next checkpoint is whole again. A
 * batch's checkpoint costs its changes, and a whole one comes only after as many changed rows as
 * it holds, so the cost per batch stays about twice the changes; a restore reads at most about
 * twice the whole state.
 */
const MAX_CHAIN = 500;

export class CheckpointStore {
  /**
   * `tableIO` is asked at each use: the FileIO of a table the flow creates is known only once the
   * table is staged (a REST catalog vends its credentials in the stage-create answer).
   */
  constructor(
    private readonly session: DuckDbSession,
    private readonly tableIO: () => FileIO,
    private readonly flowName: string,
    private readonly tempDir: string,
  ) {}

  private get io(): FileIO {
    return this.tableIO();
  }

  /** The checkpoint the newest snapshot of `metadata` carrying this flow's key points to. */
  static pointer(metadata: TableMetadata | undefined, flowName: string): string | undefined {
    return CheckpointStore.committedPointers(metadata, flowName, 1)[0];
  }

  /** The checkpoint the commit before the pointer's pointed to: superseded, and removed after it unless a crash intervened. */
  static superseded(metadata: TableMetadata | undefined, flowName: string): string | undefined {
    return CheckpointStore.committedPointers(metadata, flowName, 2)[1];
  }

  /** The newest `count` distinct checkpoints this flow's commits point to, newest first. */
  private static committedPointers(metadata: TableMetadata | undefined, flowName: string, count: number): string[] {
    const found: string[] = [];
    if (metadata === undefined) return found;
    for (const snapshot of ancestorsOf(metadata, metadata.refs.get(MAIN_BRANCH)?.snapshotId)) {
      const location = snapshot.summary[checkpointSummaryKey(flowName)];
      if (location !== undefined && !found.includes(location)) found.push(location);
      if (found.length === count) break;
    }
    return found;
  }

  /**
   * Removes, best effort, what crashed runs of this flow left once `current` is committed: the
   * `superseded` checkpoint's folder when `current` does not build on it (a crash between a
   * commit and removing the folder it replaced, found through the snapshots, so object stores
   * too), and in a local warehouse every other folder beside `current`'s that is no newer than it
   * and whose owner is gone (a crash before or after a commit). A folder newer than `current`'s,
   * or a live run's, stays.
   */
  async removeLeftovers(current: string, superseded: string | undefined): Promise<void> {
    if (superseded !== undefined && checkpointFolderOf(superseded) !== checkpointFolderOf(current)) await this.removeFolder(await this.filesOf(superseded));
    const currentFolder = this.io.localPathFor?.(checkpointFolderOf(current));
    if (currentFolder === undefined) return;
    try {
      const committedAt = await lastModified(currentFolder);
      const flowFolder = dirname(currentFolder);
      for (const name of await readdir(flowFolder)) {
        const folder = join(flowFolder, name);
        if (folder === currentFolder || (await lastModified(folder)) > committedAt) continue;
        if (await isAbandoned(folder, ownerOf(name))) await rm(folder, { recursive: true, force: true });
      }
    } catch {
      // A leftover that cannot be listed or removed now is left for a later run.
    }
  }

  /** Reads the checkpoint at `location` (and those it builds on) and replaces the operators' state tables with it. */
  async restore(location: string, operators: readonly StatefulOperator[]): Promise<Checkpoint> {
    const top = await this.readCheckpoint(location);
    const chain = [...(top.changesOn?.chain ?? []), location];
    for (const [index, folder] of chain.entries()) {
      const checkpoint = folder === location ? top : await this.readCheckpoint(folder);
      if ((index === 0) !== (checkpoint.changesOn === undefined)) {
        throw new InvalidInputError(`flow ${this.flowName}: the checkpoint at ${location} builds on ${folder}, which is not what it expects; run with --full-refresh to start over`, {
          context: { flow: this.flowName, checkpoint: location },
        });
      }
      const local = join(this.tempDir, `restore-${randomUUID()}`);
      await mkdir(local, { recursive: true });
      try {
        for (const file of checkpoint.stateFiles) await writeFile(join(local, file), await this.readCheckpointFile(folder, file));
        const changes = checkpoint.stateFiles.map((file) => file.replace(/\.parquet$/, ''));
        for (const operator of operators) {
          if (index === 0) await importState(this.session, operator, local);
          else if (operator.stateTables().length > 0) await this.replay(operator, local, changes, location);
        }
      } finally {
        await rm(local, { recursive: true, force: true });
      }
    }
    return top;
  }

  /**
   * Exports the state and positions locally, then uploads them to a new folder; returns where.
   * On `on` (the checkpoint committed last) it writes only the batch's changes when every
   * operator with state can tell them, within MAX_CHAIN and the rows of the whole state.
   */
  async save(tableLocation: string, checkpoint: Omit<Checkpoint, 'version' | 'flow' | 'stateFiles'>, operators: readonly StatefulOperator[], on?: SavedCheckpoint): Promise<SavedCheckpoint> {
    const base = on?.chainable;
    const changes = changesOf(operators);
    const fitsLikeTheLast = base === undefined || base.changedRows + (base.lastChangedRows ?? 0) <= base.wholeRows;
    let lastChangedRows: number | undefined;
    if (base !== undefined && changes !== undefined && base.chain.length < MAX_CHAIN && fitsLikeTheLast) {
      const saved = await this.upload(changesCheckpointLocation(checkpointFolderOf(base.chain[0] as string), ownedName()), async (local) => {
        lastChangedRows = await exportChanges(this.session, changes, local);
        const changedRows = base.changedRows + lastChangedRows;
        if (changedRows > base.wholeRows) return undefined;
        return {
          body: { ...checkpoint, wholeRows: base.wholeRows, changesOn: { chain: [...base.chain], changedRows } },
          chain: { chain: base.chain, wholeRows: base.wholeRows, changedRows, lastChangedRows },
        };
      });
      if (saved !== undefined) return saved;
    }
    const whole = await this.upload(wholeCheckpointLocation(tableLocation, this.flowName, ownedName()), async (local) => {
      let wholeRows = 0;
      for (const operator of operators) wholeRows += await exportState(this.session, operator, local);
      // Without operator state (file positions only) nothing could ever build on it.
      const stateful = operators.some((operator) => operator.stateTables().length > 0);
      return { body: { ...checkpoint, ...(stateful ? { wholeRows } : {}) }, chain: { chain: [], wholeRows, changedRows: 0, ...(lastChangedRows === undefined ? {} : { lastChangedRows }) } };
    });
    return whole as SavedCheckpoint;
  }

  /** Writes the state files `write` exports and checkpoint.json to `location`; undefined (nothing uploaded) when `write` declines. */
  private async upload(
    location: string,
    write: (local: string) => Promise<{ body: Omit<Checkpoint, 'version' | 'flow' | 'stateFiles'>; chain: CheckpointChain } | undefined>,
  ): Promise<SavedCheckpoint | undefined> {
    const local = join(this.tempDir, `checkpoint-${randomUUID()}`);
    await mkdir(local, { recursive: true });
    const uploaded: string[] = [];
    try {
      const written = await write(local);
      if (written === undefined) return undefined;
      const stateFiles = (await readdir(local)).sort();
      const body: Checkpoint = { version: 1, flow: this.flowName, ...written.body, stateFiles };
      await writeFile(join(local, CHECKPOINT_FILE), JSON.stringify(body));
      for (const file of [...stateFiles, CHECKPOINT_FILE]) {
        await this.io.writeNew(`${location}/${file}`, await readFile(join(local, file)));
        uploaded.push(file);
      }
      return { location, files: uploaded, chainable: { ...written.chain, chain: [...written.chain.chain, location] } };
    } catch (error) {
      await this.remove({ location, files: uploaded });
      throw error;
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  }

  private async replay(operator: StatefulOperator, local: string, changes: readonly string[], location: string): Promise<void> {
    if (operator.replayChanges === undefined) {
      throw new InvalidInputError(`flow ${this.flowName}: the checkpoint at ${location} holds changes its operators cannot replay (was the flow changed?); run with --full-refresh to start over`, {
        context: { flow: this.flowName, checkpoint: location },
      });
    }
    await importChanges(this.session, operator, local, changes);
  }

  /** After `current` is committed: removes `previous` with the checkpoints it builds on, unless `current` builds on them too. */
  async retire(previous: SavedCheckpoint, current: SavedCheckpoint): Promise<void> {
    if (checkpointFolderOf(previous.location) !== checkpointFolderOf(current.location)) await this.removeFolder(previous);
  }

  private async readCheckpoint(location: string): Promise<Checkpoint> {
    const parsed = CHECKPOINT.safeParse(JSON.parse(new TextDecoder().decode(await this.readCheckpointFile(location, CHECKPOINT_FILE))));
    if (!parsed.success || parsed.data.flow !== this.flowName) {
      throw new InvalidInputError(`flow ${this.flowName}: the checkpoint at ${location} is not one of this flow's`, {
        context: { flow: this.flowName, checkpoint: location },
      });
    }
    return parsed.data;
  }

  private async readCheckpointFile(location: string, file: string): Promise<Uint8Array> {
    try {
      return await this.io.read(`${location}/${file}`);
    } catch (error) {
      throw new InvalidInputError(
        `flow ${this.flowName}: cannot read its checkpoint ${location}/${file} (${error instanceof Error ? error.message : String(error)}); run with --full-refresh to start over`,
        { cause: error, context: { flow: this.flowName, checkpoint: location } },
      );
    }
  }

  /** Deletes a checkpoint folder's files, and a local folder once empty (best effort: an orphan folder is never read). */
  async remove(saved: SavedCheckpoint): Promise<void> {
    await Promise.all(saved.files.map((file) => this.io.delete(`${saved.location}/${file}`).catch(() => undefined)));
    const local = this.io.localPathFor?.(saved.location);
    if (local !== undefined) await rmdir(local).catch(() => undefined);
  }

  /** Deletes the checkpoints of the chain `saved` ends, newest first, so the whole one's folder is empty when its turn comes (best effort). */
  private async removeFolder(saved: SavedCheckpoint): Promise<void> {
    const chain = saved.chainable?.chain ?? [saved.location];
    for (const location of [...chain].reverse()) await this.remove(location === saved.location ? saved : await this.filesOf(location));
  }

  /** The files of an earlier checkpoint, read from its checkpoint.json, for removing it or building on it. */
  async filesOf(location: string): Promise<SavedCheckpoint> {
    try {
      const parsed = await this.readCheckpoint(location);
      const files = [...parsed.stateFiles, CHECKPOINT_FILE];
      if (parsed.wholeRows === undefined) return { location, files };
      const chain = { chain: [...(parsed.changesOn?.chain ?? []), location], wholeRows: parsed.wholeRows, changedRows: parsed.changesOn?.changedRows ?? 0 };
      return { location, files, chainable: chain };
    } catch {
      return { location, files: [CHECKPOINT_FILE] };
    }
  }
}

/** The last batch's changes of every operator with state, merged; undefined when one of them cannot tell its changes. */
function changesOf(operators: readonly StatefulOperator[]): ReadonlyMap<string, string> | undefined {
  const all = new Map<string, string>();
  for (const operator of operators) {
    if (operator.stateTables().length === 0) continue;
    const changes = operator.lastChanges?.();
    if (changes === undefined) return undefined;
    for (const [name, relation] of changes) all.set(name, relation);
  }
  return all.size === 0 ? undefined : all;
}
