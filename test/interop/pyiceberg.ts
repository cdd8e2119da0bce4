/**
 * Reads an Iceberg table with pyiceberg (an independent implementation) through
 * test/interop/read_table.py, in the venv that test/stack/python-env.sh prepares.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ThundError } from '../../src/errors.js';
import {
  commonArgv,
  restCatalogArgv,
  runReader,
  stderrOf,
  type ReaderTable,
  type ReaderValue,
  type RestCatalogReadArgs,
  type SqliteCatalogReadArgs,
} from './read-table-output.js';

const run = promisify(execFile);
const HERE = import.meta.dirname;
const PYTHON_ENV_SCRIPT = path.join(HERE, '../stack/python-env.sh');
const READ_TABLE_SCRIPT = path.join(HERE, 'read_table.py');

/** The embedded SQLite catalog (Iceberg JDBC tables) or, with `rest`, a REST catalog. */
export type PyicebergReadArgs = SqliteCatalogReadArgs | RestCatalogReadArgs;

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
  const catalog =
    'rest' in args
      ? restCatalogArgv(args.rest)
      : { argv: ['--catalog-type', 'sql', '--catalog-db', args.catalogDb], env: {} };
  const warehouse = args.warehouse === undefined ? [] : ['--warehouse', args.warehouse];
  return runReader({
    reader: 'pyiceberg',
    table: args.table,
    command: await pyicebergPython(),
    argv: [READ_TABLE_SCRIPT, ...catalog.argv, ...warehouse, ...commonArgv(args)],
    env: catalog.env,
    cwd: args.cwd,
    context: 'rest' in args ? { uri: args.rest.uri } : { catalogDb: args.catalogDb },
  });
}
