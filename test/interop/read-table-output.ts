/**
 * What every independent reader script (read_table.py for pyiceberg, read_table_spark.py for
 * Spark) prints: one JSON object of one shape, parsed and checked here, and the runner that
 * executes such a script and turns its failures into typed errors naming the reader and table.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ThundError } from '../../src/errors.js';
import { requireServiceEnv } from '../stack/service.js';

const run = promisify(execFile);

/** A JSON-safe value as the scripts print it (decimals, dates, times as strings; bytes as hex). */
export type ReaderValue = null | boolean | number | string | ReaderValue[] | { [key: string]: ReaderValue };

const Value: z.ZodType<ReaderValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(Value), z.record(z.string(), Value)]),
);

export const ReadTableOutput = z
  .object({
    table: z.string(),
    format_version: z.number().int(),
    current_snapshot_id: z.string().nullable(),
    scanned_snapshot_id: z.string().nullable(),
    schema: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        /** The Iceberg type as text: `long`, `decimal(12, 2)`, `timestamptz`, … */
        type: z.string(),
        required: z.boolean(),
        /** The engine's own SQL type, when the reader is a SQL engine (Spark: `decimal(12,2)`). */
        engine_type: z.string().optional(),
      }),
    ),
    rows: z.array(z.record(z.string(), Value)),
    row_count: z.number().int(),
    snapshots: z.array(
      z.object({
        snapshot_id: z.string(),
        parent_snapshot_id: z.string().nullable(),
        sequence_number: z.number().int().nullable(),
        timestamp_ms: z.number().int(),
        summary: z.record(z.string(), z.string()),
      }),
    ),
    data_files: z.array(
      z.object({
        file_path: z.string(),
        record_count: z.number().int(),
        file_size_in_bytes: z.number().int(),
        delete_file_count: z.number().int(),
      }),
    ),
  })
  .transform((o) => ({
    table: o.table,
    formatVersion: o.format_version,
    currentSnapshotId: o.current_snapshot_id,
    scannedSnapshotId: o.scanned_snapshot_id,
    schema: o.schema.map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type,
      required: f.required,
      ...(f.engine_type === undefined ? {} : { engineType: f.engine_type }),
    })),
    rows: o.rows,
    rowCount: o.row_count,
    snapshots: o.snapshots.map((s) => ({
      snapshotId: s.snapshot_id,
      parentSnapshotId: s.parent_snapshot_id,
      sequenceNumber: s.sequence_number,
      timestampMs: s.timestamp_ms,
      summary: s.summary,
    })),
    dataFiles: o.data_files.map((f) => ({
      filePath: f.file_path,
      recordCount: f.record_count,
      fileSizeInBytes: f.file_size_in_bytes,
      deleteFileCount: f.delete_file_count,
    })),
  }));

/**
 * A table as an independent reader sees it. Snapshot ids are strings (int64). Row values that
 * are ints arrive as JSON numbers, so longs beyond 2^53 lose precision: keep test values small.
 */
export type ReaderTable = z.output<typeof ReadTableOutput>;

/** Arguments every reader script takes for the embedded SQLite (Iceberg JDBC) catalog. */
export interface SqliteCatalogReadArgs {
  /** Path of the SQLite catalog database (Iceberg JDBC catalog tables). */
  readonly catalogDb: string;
  /** Warehouse URI (file:///…); needed to open the catalog, not used to read. */
  readonly warehouse: string;
  /** The catalog_name the tables are registered under. */
  readonly catalogName: string;
  /** `namespace.table`; the namespace may have several levels. */
  readonly table: string;
  /** Scan this snapshot instead of the current one. */
  readonly snapshotId?: bigint | string;
  /**
   * A row filter pushed into the scan, so file pruning by manifest bounds takes part:
   * a simple comparison such as `order_id > 500` (pyiceberg row_filter / Spark WHERE syntax).
   */
  readonly filter?: string;
  /** Working directory for the reader: relative metadata/data locations resolve from here. */
  readonly cwd?: string;
}

/** A REST catalog as the reader scripts open it (the shape spark.ts's SparkRestCatalog has too). */
export interface RestCatalogReadTarget {
  /** The REST catalog's URI, e.g. http://127.0.0.1:PORT. */
  readonly uri: string;
  /** S3 endpoint of the object store (path-style access). */
  readonly s3Endpoint?: string;
  /** S3 credentials and region: passed to the reader in its environment, never on its command line. */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  readonly region?: string;
}

/** A REST catalog of the test stack, its files on the stack's MinIO (keys from the environment). */
export function stackRestReadTarget(uri: string): RestCatalogReadTarget {
  return {
    uri,
    s3Endpoint: requireServiceEnv('THUND_TEST_S3_ENDPOINT'),
    accessKeyId: requireServiceEnv('THUND_TEST_S3_ACCESS_KEY'),
    secretAccessKey: requireServiceEnv('THUND_TEST_S3_SECRET_KEY'),
    region: requireServiceEnv('THUND_TEST_S3_REGION'),
  };
}

/** Arguments for reading a table through a REST catalog. */
export type RestCatalogReadArgs = Omit<SqliteCatalogReadArgs, 'catalogDb' | 'warehouse'> & {
  readonly rest: RestCatalogReadTarget;
  /** Sent to the catalog's /v1/config, when the server wants one. */
  readonly warehouse?: string;
};

/** The command-line arguments and environment a reader script gets for a REST catalog. */
export function restCatalogArgv(rest: RestCatalogReadTarget): { argv: string[]; env: Record<string, string> } {
  const argv = ['--catalog-type', 'rest', '--uri', rest.uri];
  if (rest.s3Endpoint !== undefined) argv.push('--s3-endpoint', rest.s3Endpoint);
  const env: Record<string, string> = {};
  if (rest.accessKeyId !== undefined) env['AWS_ACCESS_KEY_ID'] = rest.accessKeyId;
  if (rest.secretAccessKey !== undefined) env['AWS_SECRET_ACCESS_KEY'] = rest.secretAccessKey;
  if (rest.region !== undefined) env['AWS_REGION'] = rest.region;
  return { argv, env };
}

/** The common command-line arguments of the reader scripts. */
export function commonArgv(args: Omit<SqliteCatalogReadArgs, 'catalogDb' | 'warehouse' | 'cwd'>): string[] {
  const argv = ['--catalog-name', args.catalogName, '--table', args.table];
  if (args.snapshotId !== undefined) argv.push('--snapshot-id', String(args.snapshotId));
  if (args.filter !== undefined) argv.push('--filter', args.filter);
  return argv;
}

export interface RunReaderOptions {
  /** `pyiceberg`, `spark`: names the reader in errors. */
  readonly reader: string;
  readonly table: string;
  readonly command: string;
  readonly argv: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly context?: Readonly<Record<string, string>>;
}

/** Runs one reader script, parses its one JSON object, and checks its shape. */
export async function runReader(options: RunReaderOptions): Promise<ReaderTable> {
  const { reader, table } = options;
  let stdout: string;
  try {
    ({ stdout } = await run(options.command, [...options.argv], {
      cwd: options.cwd,
      env: options.env === undefined ? process.env : { ...process.env, ...options.env },
      maxBuffer: 512 * 1024 * 1024,
      timeout: options.timeoutMs ?? 0,
    }));
  } catch (cause) {
    throw new ThundError('INTEROP_READER', `${reader} could not read ${table}: ${stderrOf(cause)}`, {
      cause,
      context: { reader, table, ...options.context },
    });
  }
  // The JSON object is the last line: engines may print their own chatter before it.
  const line = stdout.trimEnd().split('\n').at(-1) ?? '';
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (cause) {
    throw new ThundError('INTEROP_READER', `${reader} printed no JSON for ${table}: ${stdout.slice(0, 500)}`, {
      cause,
      context: { reader, table },
    });
  }
  const parsed = ReadTableOutput.safeParse(json);
  if (!parsed.success) {
    throw new ThundError('INTEROP_READER', `${reader} printed an unexpected shape for ${table}: ${parsed.error.message}`, {
      context: { reader, table },
    });
  }
  return parsed.data;
}

/** The child's stderr when it has any (that is where the scripts explain), else the message. */
export function stderrOf(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim().split('\n').slice(-40).join('\n');
  return error instanceof Error ? error.message : String(error);
}
