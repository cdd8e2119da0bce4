/**
 * The Parquet file source: exposes files as a DuckDB view that flow SQL reads by name. Local
 * paths and globs are read in place; S3 paths (s3-parquet-objects.ts) are listed, matched and
 * copied into a per-run staging folder first. Fails before any flow runs when a pattern matches
 * nothing or a file is not Parquet.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '../../src/errors.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../src/duckdb/session.js';
import type { SourceDataset } from '../../src/pipeline/ir/dataset.js';
import type { SourceConnector } from '../source.js';
import { runLimited } from '../storage/run-limited.js';
import type { S3FileIO } from '../storage/s3-file-io.js';
import { isS3Location } from '../storage/s3-location.js';
import type { S3FileIOOptions } from '../storage/s3-options.js';
import { checkLooksLikeParquet, matchS3Objects } from './s3-parquet-objects.js';
import { SourceStaging } from './source-staging.js';

const PARALLEL_CHECKS = 8;

export interface ParquetSource {
  /** Absolute paths or globs. */
  readonly paths: readonly string[];
}

export interface ParquetSourceConnectorOptions {
  /** Needed for s3:// source paths. */
  readonly s3?: S3FileIOOptions;
  /** Where the per-run staging folder for remote files is made (default: the OS temp folder). */
  readonly stagingDir?: string;
}

export type ClosableSourceConnector = SourceConnector & {
  /** Removes the staged copies of remote files; call once the run's flows are done reading them. */
  close(): Promise<void>;
};

/** Local paths and globs only; registers the view over `source.paths` as given. */
export async function registerParquetSource(session: DuckDbSession, name: string, source: ParquetSource): Promise<void> {
  for (const pattern of source.paths) await requireLocalMatch(session, name, pattern);
  await createParquetView(session, name, source.paths);
}

/** Local sources only (an S3 path fails with InvalidInputError); kept for callers without S3 settings. */
export const parquetSourceConnector: SourceConnector = {
  register: (session, source) => registerParquetSource(session, source.name, parquetOptions(source)),
  fingerprint: (session, source) => localFingerprint(session, source.name, parquetOptions(source).paths),
};

/** The source's Parquet settings; another format is an InvalidInputError naming the source. */
function parquetOptions(source: SourceDataset): ParquetSource {
  if (source.source.format !== 'parquet') {
    throw new InvalidInputError(`Source "${source.name}": the Parquet connector cannot read a ${source.source.format} source`, {
      context: { source: source.name },
    });
  }
  return source.source;
}

export function createParquetSourceConnector(options: ParquetSourceConnectorOptions = {}): ClosableSourceConnector {
  const staging = new SourceStaging(options.stagingDir);
  // The S3 client (and the AWS SDK) is loaded when a source is on S3, not before.
  let io: Promise<S3FileIO> | undefined;
  const s3For = (source: SourceDataset, path: string): Promise<S3FileIO> => {
    if (options.s3 === undefined) {
      throw new InvalidInputError(`Source "${source.name}": ${path} is on S3 but no S3 settings (region, endpoint, credentials) were given`, {
        context: { source: source.name, path },
      });
    }
    const s3 = options.s3;
    io ??= import('../storage/s3-file-io.js').then(({ S3FileIO }) => new S3FileIO(s3));
    return io;
  };
  return {
    async register(session, source) {
      const { paths } = parquetOptions(source);
      const files: string[] = [];
      for (const pattern of paths) {
        if (!isS3Location(pattern)) {
          await requireLocalMatch(session, source.name, pattern);
          files.push(pattern);
          continue;
        }
        const s3 = await s3For(source, pattern);
        const objects = await matchS3Objects(s3, source.name, pattern);
        if (objects.length === 0) throw noMatch(source.name, pattern);
        await runLimited(objects.length, PARALLEL_CHECKS, (i) => checkLooksLikeParquet(s3, source.name, objects[i]!));
        files.push(...(await staging.download(s3, objects)));
      }
      await createParquetView(session, source.name, files, paths);
    },
    async fingerprint(session, source) {
      const { paths } = parquetOptions(source);
      const parts: string[] = [];
      for (const pattern of paths) {
        if (!isS3Location(pattern)) {
          parts.push(...(await localEntries(session, source.name, pattern)));
          continue;
        }
        // S3 listings give no modification time here: key and size stand for the object.
        const objects = await matchS3Objects(await s3For(source, pattern), source.name, pattern);
        parts.push(...objects.map((object) => `${object.location}\u0000${object.size}`).sort());
      }
      return digest(parts.sort());
    },
    async close() {
      const opened = io;
      io = undefined;
      (await opened)?.close();
      await staging.close();
    },
  };
}

/** sha256 over the matched local files' paths, sizes and modification times. */
async function localFingerprint(session: () => Promise<DuckDbSession>, name: string, patterns: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const pattern of patterns) parts.push(...(await localEntries(session, name, pattern)));
  return digest(parts.sort());
}

/** One `path, size, mtime` entry per local file the pattern matches (as DuckDB's glob matches). */
async function localEntries(session: () => Promise<DuckDbSession>, name: string, pattern: string): Promise<string[]> {
  if (isPlainPath(pattern)) {
    // DuckDB's glob of a path without wildcards is that path, verbatim, when it names a regular
    // file (symbolic links followed), and nothing otherwise: stat answers the same without DuckDB.
    const info = await stat(pattern).catch(() => undefined);
    if (info?.isFile() !== true) throw noMatch(name, pattern);
    return [`${pattern}\u0000${info.size}\u0000${info.mtimeMs}`];
  }
  const opened = await session();
  await requireLocalMatch(opened, name, pattern);
  const rows = await opened.queryJson(`SELECT file FROM glob(${quoteLiteral(pattern)})`);
  const entries: string[] = [];
  for (const row of rows) {
    const file = String(row['file']);
    const info = await stat(file);
    entries.push(`${file}\u0000${info.size}\u0000${info.mtimeMs}`);
  }
  return entries;
}

/** An absolute local path with nothing DuckDB's glob would expand (wildcards, character classes, braces, ~). */
function isPlainPath(pattern: string): boolean {
  return path.isAbsolute(pattern) && !/[*?[\]{}~\\]/.test(pattern);
}

function digest(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}

async function requireLocalMatch(session: DuckDbSession, name: string, pattern: string): Promise<void> {
  if (isS3Location(pattern)) {
    throw new InvalidInputError(`Source "${name}": ${pattern} is on S3; use createParquetSourceConnector with S3 settings`, {
      context: { source: name, path: pattern },
    });
  }
  const [row] = await session.queryJson(`SELECT count(*) AS files FROM glob(${quoteLiteral(pattern)})`);
  if (row === undefined || Number(row['files']) === 0) throw noMatch(name, pattern);
}

function noMatch(name: string, pattern: string): InvalidInputError {
  return new InvalidInputError(`Source "${name}": no Parquet file matches ${pattern}`, { context: { source: name, path: pattern } });
}

/** `shown` names the files in errors as the spec wrote them (not the staged copies). */
async function createParquetView(session: DuckDbSession, name: string, files: readonly string[], shown: readonly string[] = files): Promise<void> {
  try {
    await session.run(`CREATE VIEW ${quoteIdentifier(name)} AS SELECT * FROM read_parquet([${files.map(quoteLiteral).join(', ')}])`);
    await session.run(`SELECT * FROM ${quoteIdentifier(name)} LIMIT 0`);
  } catch (error) {
    throw new InvalidInputError(`Source "${name}": cannot read ${shown.join(', ')} as Parquet: ${duckDbMessage(error)}`, {
      cause: error,
      context: { source: name },
    });
  }
}
