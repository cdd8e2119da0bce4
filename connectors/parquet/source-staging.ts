/**
 * The per-run local folder that remote source files are copied into so DuckDB can read them
 * (its httpfs extension cannot be installed offline). Downloads are streamed to disk, a few at
 * a time (a failed run stops at the first failure and waits for the others); close() removes the folder and everything in it.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLimited } from '../storage/run-limited.js';
import type { S3FileIO, S3ObjectEntry } from '../storage/s3-file-io.js';

const PARALLEL_DOWNLOADS = 4;

export class SourceStaging {
  private root: Promise<string> | undefined;
  private sources = 0;

  /** `parent` defaults to the OS temp folder. */
  constructor(private readonly parent: string = tmpdir()) {}

  /** Downloads the objects into a fresh folder and returns their local paths, in the order given. */
  async download(io: S3FileIO, objects: readonly S3ObjectEntry[]): Promise<string[]> {
    this.root ??= mkdir(this.parent, { recursive: true }).then(() => mkdtemp(join(this.parent, 'thund-sources-')));
    const dir = join(await this.root, String(this.sources++));
    await mkdir(dir);
    // Local names come from the index, not the key: keys may hold `..`, or clash once flattened.
    const paths = objects.map((object, i) => join(dir, `${String(i).padStart(6, '0')}-${safeName(object.key)}`));
    await runLimited(objects.length, PARALLEL_DOWNLOADS, (i) => io.readToFile(objects[i]!.location, paths[i]!));
    return paths;
  }

  /** The staging folder, once something was staged. */
  async folder(): Promise<string | undefined> {
    return this.root === undefined ? undefined : await this.root;
  }

  async close(): Promise<void> {
    const root = this.root;
    this.root = undefined;
    if (root === undefined) return;
    const folder = await root.catch(() => undefined);
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  }
}

function safeName(key: string): string {
  const base = key.slice(key.lastIndexOf('/') + 1);
  return base.replace(/[^A-Za-z0-9._-]/g, '_').slice(-100);
}
