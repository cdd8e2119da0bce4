/**
 * Local paths DuckDB can read for table files: a local FileIO's own path, or a copy downloaded
 * into a private temp folder (DuckDB's httpfs cannot be installed offline). close() removes
 * the copies.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileIO } from '../iceberg/file-io.js';

const PARALLEL_DOWNLOADS = 4;

/** FileIOs that can stream an object to disk (S3FileIO). */
interface StreamingFileIO extends FileIO {
  readToFile(location: string, localPath: string): Promise<void>;
}

export class TableFileStaging {
  private folder: Promise<string> | undefined;
  private count = 0;

  constructor(private readonly io: FileIO) {}

  /** Local paths for the locations, in the order given. */
  async localPaths(locations: readonly string[]): Promise<string[]> {
    const paths: string[] = new Array<string>(locations.length);
    const downloads: number[] = [];
    locations.forEach((location, i) => {
      const local = this.io.localPathFor?.(location);
      if (local !== undefined) paths[i] = local;
      else downloads.push(i);
    });
    if (downloads.length === 0) return paths;
    this.folder ??= mkdtemp(join(tmpdir(), 'thund-scan-'));
    const folder = await this.folder;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < downloads.length) {
        const i = downloads[next++]!;
        const local = join(folder, `${String(this.count++).padStart(6, '0')}.parquet`);
        await this.download(locations[i]!, local);
        paths[i] = local;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_DOWNLOADS, downloads.length) }, worker));
    return paths;
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
