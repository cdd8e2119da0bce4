/**
 * Reads an Iceberg table with Spark SQL and Iceberg's own Spark runtime (an independent
 * implementation) through test/interop/read_table_spark.py; same output as readWithPyiceberg.
 */
import path from 'node:path';
import { prepareSparkReader } from '../stack/spark.js';
import { commonArgv, runReader, type ReaderTable, type SqliteCatalogReadArgs } from './read-table-output.js';

const READ_TABLE_SCRIPT = path.join(import.meta.dirname, 'read_table_spark.py');
/** A cold JVM plus a scan on two busy cores; a hung session must still end. */
const READ_TIMEOUT_MS = 600_000;

export interface SparkRestCatalog {
  /** The REST catalog's URI, e.g. http://127.0.0.1:PORT. */
  readonly uri: string;
  /** S3 endpoint of the object store (path-style access). */
  readonly s3Endpoint?: string;
  /** S3 credentials and region: passed to the reader in its environment, never on its command line. */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  readonly region?: string;
}

/** The embedded SQLite catalog (Iceberg JDBC tables) or, with `rest`, a REST catalog. */
export type SparkReadArgs =
  | SqliteCatalogReadArgs
  | (Omit<SqliteCatalogReadArgs, 'catalogDb' | 'warehouse'> & { readonly rest: SparkRestCatalog; readonly warehouse?: string });

export type SparkTable = ReaderTable;

export async function readWithSpark(args: SparkReadArgs): Promise<SparkTable> {
  const { python, jars } = await prepareSparkReader();
  const argv = [READ_TABLE_SCRIPT, '--jars', jars.join(',')];
  const env: Record<string, string> = {};
  if ('rest' in args) {
    argv.push('--catalog-type', 'rest', '--uri', args.rest.uri);
    if (args.rest.s3Endpoint !== undefined) argv.push('--s3-endpoint', args.rest.s3Endpoint);
    if (args.rest.accessKeyId !== undefined) env['AWS_ACCESS_KEY_ID'] = args.rest.accessKeyId;
    if (args.rest.secretAccessKey !== undefined) env['AWS_SECRET_ACCESS_KEY'] = args.rest.secretAccessKey;
    if (args.rest.region !== undefined) env['AWS_REGION'] = args.rest.region;
  } else {
    argv.push('--catalog-type', 'jdbc', '--catalog-db', args.catalogDb);
  }
  if (args.warehouse !== undefined) argv.push('--warehouse', args.warehouse);
  argv.push(...commonArgv(args));
  return runReader({
    reader: 'spark',
    table: args.table,
    command: python,
    argv,
    cwd: args.cwd,
    env,
    timeoutMs: READ_TIMEOUT_MS,
    context: 'rest' in args ? { uri: args.rest.uri } : { catalogDb: args.catalogDb },
  });
}
