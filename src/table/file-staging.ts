/**
 * Local paths DuckDB can read for table files: a local FileIO's own path, or a copy downloaded
 * into a private temp folder (DuckDB's httpfs cannot be installed offline). close() removes
 * the copies.
 *
 * For a schema with a timestamptz_ns column (`utcNanos`), a Parquet file with a UTC-adjusted
 * nanosecond timestamp column is read through a private copy whose footer calls the column not adjusted: DuckDB reads it as
 * TIMESTAMP_NS then, where it would cut the UTC-adjusted form to microseconds
 * (parquet-utc-nanos.ts). A downloaded copy is changed in place; a local file is copied first.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileIO } from '../iceberg/file-io.js';
import { clearUtcNanosFlags, hasUtcNanos } from '../iceberg/parquet-utc-nanos.js';

const PARALLEL_DOWNLOADS = 4;
const PARALLEL_PROBES = 8;

/** FileIOs that can stream an object to disk (S3FileIO). */
interface StreamingFileIO extends FileIO {
  readToFile(location: string, localPath: string): Promise<void>;
}

export class TableFileStaging {
  private folder: Promise<string> | undefined;
  private count = 0;

  /** `utcNanos`: the files may hold timestamptz_ns columns, whose footers are probed (others are not). */
  constructor(
    private readonly io: FileIO,
    private readonly utcNanos = false,
  ) {}

  /** Local paths for the locations, in the order given. */
  async localPaths(locations: readonly string[]): Promise<string[]> {
    const paths: string[] = new Array<string>(locations.length);
    const downloads: number[] = [];
    const originals: number[] = [];
    locations.forEach((location, i) => {
      const local = this.io.localPathFor?.(location);
      if (local !== undefined) {
        paths[i] = local;
        originals.push(i);
      } else downloads.push(i);
    });
    if (downloads.length > 0) {
      const folder = await this.stagingFolder();
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < downloads.length) {
          const i = downloads[next++]!;
          const local = join(folder, this.nextName());
          await this.download(locations[i]!, local);
          if (this.utcNanos) await readableNanos(local);
          paths[i] = local;
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_DOWNLOADS, downloads.length) }, worker));
    }
    if (!this.utcNanos) return paths;
    // Local files are read in place unless they hold UTC-adjusted nanos: only their footers are probed.
    let probed = 0;
    const prober = async (): Promise<void> => {
      while (probed < originals.length) {
        const i = originals[probed++]!;
        if (!(await probe(() => hasUtcNanos(paths[i]!), false))) continue;
        const copy = join(await this.stagingFolder(), this.nextName());
        await copyFile(paths[i]!, copy);
        await readableNanos(copy);
        paths[i] = copy;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PROBES, originals.length) }, prober));
    return paths;
  }

  private stagingFolder(): Promise<string> {
    this.folder ??= mkdtemp(join(tmpdir(), 'thund-scan-'));
    return this.folder;
  }

  private nextName(): string {
    return `${String(this.count++).padStart(6, '0')}.parquet`;
  }

  private async download(location: string, local: string): Promise<void> {
    const io = this.io as Partial<StreamingFileIO>;
    if (typeof io.readToFile === 'function') await io.readToFile.call(this.io, location, local);
    else await writeFile(local, await this.io.read(location), { flag: 'wx' });
  }

  async close(): Promise<void> {
    const folder = this.folder;
    this.folder = undefined;
    if (folder !== undefined) await rm(await folder, { recursive: true, force: true });
  }
}

/** Clears the UTC flag of a private copy's nanosecond columns so DuckDB reads them whole. */
async function readableNanos(local: string): Promise<void> {
  await probe(() => clearUtcNanosFlags(local), 0);
}

/**
 * A file whose footer Thund cannot walk (or open) is left for DuckDB to read as it is, and to
 * report on: at worst a UTC-adjusted nanosecond column is cut to µs, rather than every scan of
 * the table failing here.
 */
async function probe<T>(step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch {
    return fallback;
  }
}
