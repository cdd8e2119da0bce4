/**
 * Reads an Iceberg table with pyiceberg (an independent implementation) through
 * test/interop/read_table.py, in the venv that test/stack/python-env.sh prepares.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ThundError } from '../../src/errors.js';
import { commonArgv, runReader, stderrOf, type ReaderTable, type ReaderValue, type SqliteCatalogReadArgs } from './read-table-output.js';

const run = promisify(execFile);
const HERE = import.meta.dirname;
const PYTHON_ENV_SCRIPT = path.join(HERE, '../stack/python-env.sh');
const READ_TABLE_SCRIPT = path.join(HERE, 'read_table.py');

export type PyicebergReadArgs = SqliteCatalogReadArgs;

/** A JSON-safe value as read_table.py prints it (decimals, dates, times as strings; bytes as hex). */
export type PyicebergValue = ReaderValue;

/**
 * The table as pyiceberg sees it. Snapshot ids are strings (int64). Row values that are ints
 * arrive as JSON numbers, so longs beyond 2^53 lose precision: compare such columns as text
 * (e.g. CAST in the writer's check) or keep test values small.
 */
export type PyicebergTable = ReaderTable;

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
    throw new ThundError('INTEROP_READER', `preparing the interop venv failed: ${stderrOf(cause)}`, {
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
  return runReader({
    reader: 'pyiceberg',
    table: args.table,
    command: await pyicebergPython(),
    argv: [READ_TABLE_SCRIPT, '--catalog-db', args.catalogDb, '--warehouse', args.warehouse, ...commonArgv(args)],
    cwd: args.cwd,
    context: { catalogDb: args.catalogDb },
  });
}
