/**
 * Reads an Iceberg table with pyiceberg (an independent implementation) through
 * test/interop/read_table.py, in the venv that test/stack/python-env.sh prepares.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ThundError } from '../../src/errors.js';

const run = promisify(execFile);
const HERE = import.meta.dirname;
const PYTHON_ENV_SCRIPT = path.join(HERE, '../stack/python-env.sh');
const READ_TABLE_SCRIPT = path.join(HERE, 'read_table.py');

export interface PyicebergReadArgs {
  /** Path of the SQLite catalog database (pyiceberg SqlCatalog / Iceberg JDBC catalog tables). */
  readonly catalogDb: string;
  /** Warehouse URI (file:///…); needed to open the catalog, not used to read. */
  readonly warehouse: string;
  /** The catalog_name the tables are registered under. */
  readonly catalogName: string;
  /** `namespace.table`; the namespace may have several levels. */
  readonly table: string;
  /** Scan this snapshot instead of the current one. */
  readonly snapshotId?: bigint | string;
  /** Working directory for the reader: relative metadata/data locations resolve from here. */
  readonly cwd?: string;
}

/** A JSON-safe value as read_table.py prints it (decimals, dates, times as strings; bytes as hex). */
export type PyicebergValue = null | boolean | number | string | PyicebergValue[] | { [key: string]: PyicebergValue };

const Value: z.ZodType<PyicebergValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(Value), z.record(z.string(), Value)]),
);

const ReadTableOutput = z
  .object({
    table: z.string(),
    format_version: z.number().int(),
    current_snapshot_id: z.string().nullable(),
    scanned_snapshot_id: z.string().nullable(),
    schema: z.array(z.object({ id: z.number().int(), name: z.string(), type: z.string(), required: z.boolean() })),
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
    schema: o.schema,
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
 * The table as pyiceberg sees it. Snapshot ids are strings (int64). Row values that are ints
 * arrive as JSON numbers, so longs beyond 2^53 lose precision: compare such columns as text
 * (e.g. CAST in the writer's check) or keep test values small.
 */
export type PyicebergTable = z.output<typeof ReadTableOutput>;

let pythonPath: Promise<string> | undefined;

/** The venv's python, prepared once per process (python-env.sh itself is cached across runs). */
export function pyicebergPython(): Promise<string> {
  pythonPath ??= prepare().catch((error: unknown) => {
    pythonPath = undefined;
    throw error;
  });
  return pythonPath;
}

async function prepare(): Promise<string> {
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [PYTHON_ENV_SCRIPT], { maxBuffer: 16 * 1024 * 1024 }));
  } catch (cause) {
    throw new ThundError('INTEROP_READER', `preparing the pyiceberg venv failed: ${stderrOf(cause)}`, {
      cause,
      context: { script: PYTHON_ENV_SCRIPT },
    });
  }
  const last = stdout.trim().split('\n').at(-1)?.trim() ?? '';
  if (last === '') {
    throw new ThundError('INTEROP_READER', 'python-env.sh printed no python path', { context: { script: PYTHON_ENV_SCRIPT } });
  }
  return last;
}

export async function readWithPyiceberg(args: PyicebergReadArgs): Promise<PyicebergTable> {
  const python = await pyicebergPython();
  const argv = [
    READ_TABLE_SCRIPT,
    '--catalog-db',
    args.catalogDb,
    '--warehouse',
    args.warehouse,
    '--catalog-name',
    args.catalogName,
    '--table',
    args.table,
  ];
  if (args.snapshotId !== undefined) argv.push('--snapshot-id', String(args.snapshotId));
  let stdout: string;
  try {
    ({ stdout } = await run(python, argv, { cwd: args.cwd, maxBuffer: 512 * 1024 * 1024 }));
  } catch (cause) {
    throw new ThundError('INTEROP_READER', `pyiceberg could not read ${args.table}: ${stderrOf(cause)}`, {
      cause,
      context: { table: args.table, catalogDb: args.catalogDb },
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (cause) {
    throw new ThundError('INTEROP_READER', `read_table.py printed no JSON for ${args.table}: ${stdout.slice(0, 500)}`, {
      cause,
      context: { table: args.table },
    });
  }
  const parsed = ReadTableOutput.safeParse(json);
  if (!parsed.success) {
    throw new ThundError('INTEROP_READER', `read_table.py printed an unexpected shape for ${args.table}: ${parsed.error.message}`, {
      context: { table: args.table },
    });
  }
  return parsed.data;
}

function stderrOf(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim();
  return error instanceof Error ? error.message : String(error);
}
