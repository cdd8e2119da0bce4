/**
 * A streaming flow's checkpoint: its operators' state tables (Parquet, state-checkpoint.ts) and its
 * source positions, in a new folder `<table location>/thund-checkpoints/<flow>/<uuid>/` written
 * through the table's FileIO (so S3 works), and pointed to by the snapshot summary key
 * `thund.checkpoint.<flow>` of the commit that lands the same batch. `checkpoint.json` is written
 * last and lists the other files. A folder no snapshot points to (a crash before the commit) is
 * never read; the previous folder is deleted only after the commit that replaces it. Folders are
 * named `<pid>-<host>-<uuid>` (owned-folders.ts), so a later run can remove what a crashed one
 * left behind without touching a live run's (removeLeftovers).
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
import { exportState, importState, type StatefulOperator } from '../../operators/state-checkpoint.js';
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
});

export type Checkpoint = z.infer<typeof CHECKPOINT>;

export interface SavedCheckpoint {
  readonly location: string;
  readonly files: readonly string[];
}

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

  /** The folder the newest snapshot of `metadata` carrying this flow's key points to. */
  static pointer(metadata: TableMetadata | undefined, flowName: string): string | undefined {
    return CheckpointStore.committedPointers(metadata, flowName, 1)[0];
  }

  /** The folder the commit before the pointer's pointed to: superseded, and removed after it unless a crash intervened. */
  static superseded(metadata: TableMetadata | undefined, flowName: string): string | undefined {
    return CheckpointStore.committedPointers(metadata, flowName, 2)[1];
  }

  /** The newest `count` distinct checkpoint folders this flow's commits point to, newest first. */
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
   * `superseded` folder (a crash between a commit and removing the folder it replaced, found
   * through the snapshots, so object stores too), and in a local warehouse every other folder
   * beside `current` that is no newer than it and whose owner is gone (a crash before or after a
   * commit). A folder newer than `current`, or a live run's, stays.
   */
  async removeLeftovers(current: string, superseded: string | undefined): Promise<void> {
    if (superseded !== undefined && superseded !== current) await this.remove(await this.filesOf(superseded));
    const currentFolder = this.io.localPathFor?.(current);
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

  /** Reads the checkpoint at `location` and replaces the operators' state tables with it. */
  async restore(location: string, operators: readonly StatefulOperator[]): Promise<Checkpoint> {
    const local = join(this.tempDir, `restore-${randomUUID()}`);
    await mkdir(local, { recursive: true });
    try {
      const parsed = CHECKPOINT.safeParse(JSON.parse(new TextDecoder().decode(await this.readCheckpointFile(location, CHECKPOINT_FILE))));
      if (!parsed.success || parsed.data.flow !== this.flowName) {
        throw new InvalidInputError(`flow ${this.flowName}: the checkpoint at ${location} is not one of this flow's`, {
          context: { flow: this.flowName, checkpoint: location },
        });
      }
      for (const file of parsed.data.stateFiles) await writeFile(join(local, file), await this.readCheckpointFile(location, file));
      for (const operator of operators) await importState(this.session, operator, local);
      return parsed.data;
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  }

  /** Exports the state and positions locally, then uploads them to a new folder; returns where. */
  async save(tableLocation: string, checkpoint: Omit<Checkpoint, 'version' | 'flow' | 'stateFiles'>, operators: readonly StatefulOperator[]): Promise<SavedCheckpoint> {
    const id = ownedName();
    const local = join(this.tempDir, `checkpoint-${id}`);
    await mkdir(local, { recursive: true });
    const location = `${tableLocation.replace(/\/+$/, '')}/thund-checkpoints/${encodeURIComponent(this.flowName)}/${id}`;
    const uploaded: string[] = [];
    try {
      for (const operator of operators) await exportState(this.session, operator, local);
      const stateFiles = (await readdir(local)).sort();
      const body: Checkpoint = { version: 1, flow: this.flowName, ...checkpoint, stateFiles };
      await writeFile(join(local, CHECKPOINT_FILE), JSON.stringify(body));
      for (const file of [...stateFiles, CHECKPOINT_FILE]) {
        await this.io.writeNew(`${location}/${file}`, await readFile(join(local, file)));
        uploaded.push(file);
      }
      return { location, files: uploaded };
    } catch (error) {
      await this.remove({ location, files: uploaded });
      throw error;
    } finally {
      await rm(local, { recursive: true, force: true });
    }
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

  /** The files of an earlier checkpoint, read from its checkpoint.json, for removing it. */
  async filesOf(location: string): Promise<SavedCheckpoint> {
    try {
      const parsed = CHECKPOINT.parse(JSON.parse(new TextDecoder().decode(await this.io.read(`${location}/${CHECKPOINT_FILE}`))));
      return { location, files: [...parsed.stateFiles, CHECKPOINT_FILE] };
    } catch {
      return { location, files: [CHECKPOINT_FILE] };
    }
  }
}
