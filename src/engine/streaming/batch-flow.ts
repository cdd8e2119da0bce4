/**
 * Turns a micro-batch into rows shaped like the target table: stage the records, run the flow
 * SQL over them (a view) and cast its output onto the table's columns, materialised in DuckDB once
 * so every error shows up here and not halfway through writing files. A batch that fails is split in
 * halves until the records that fail alone are found; those become dead letters with DuckDB's
 * reason, and the rest go on (a poison record never stops the stream).
 */
import { FlowError } from '../../errors.js';
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { icebergToDuckDbType } from '../../iceberg/duckdb-types.js';
import type { NestedField } from '../../iceberg/types.js';
import { RECORD_COLUMNS, stageRecords, type JsonRecord } from './batch-staging.js';

/** DuckDB tables the flow reads and the writer reads. */
export const BATCH_OUTPUT_TABLE = 'thund_batch_output';
const FLOW_RESULT_TABLE = 'thund_batch_flow';

export interface BatchFlowSettings {
  readonly session: DuckDbSession;
  readonly tempDir: string;
  /** The name flow SQL reads the batch by. */
  readonly view: string;
  /** The flow's SELECT over the view; undefined: every column. */
  readonly sql: string | undefined;
}

export interface DescribedColumn {
  readonly name: string;
  readonly type: string;
}

export interface FlowRecordFailure {
  readonly record: JsonRecord;
  readonly reason: string;
}

export interface BatchFlowResult {
  readonly rows: number;
  readonly failures: readonly FlowRecordFailure[];
  /** Output columns the table does not have (not written). */
  readonly ignoredColumns: readonly string[];
}

/**
 * Stages and runs the flow only, then describes the output (to create the table from); undefined
 * when no record goes through (the failing ones are found again by runBatchFlow).
 */
export async function describeBatchOutput(settings: BatchFlowSettings, records: readonly JsonRecord[]): Promise<DescribedColumn[] | undefined> {
  const good = await isolateFailures(records, (subset) => runFlow(settings, subset, undefined), []);
  if (good.length === 0) return undefined;
  if (good.length !== records.length) await runFlow(settings, good, undefined);
  const rows = (await settings.session.queryJson(`DESCRIBE ${quoteIdentifier(FLOW_RESULT_TABLE)}`)) as Array<{ column_name: string; column_type: string }>;
  return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
}

/**
 * Leaves BATCH_OUTPUT_TABLE holding exactly the table's columns for the records that went
 * through; the records that failed on their own come back with the reason.
 */
export async function runBatchFlow(settings: BatchFlowSettings, records: readonly JsonRecord[], fields: readonly NestedField[]): Promise<BatchFlowResult> {
  const failures: FlowRecordFailure[] = [];
  let ignored: string[] = [];
  const attempt = async (subset: readonly JsonRecord[]): Promise<void> => {
    ignored = await materialize(settings, subset, fields);
  };
  const good = await isolateFailures(records, attempt, failures);
  if (good.length === 0) return { rows: 0, failures, ignoredColumns: [] };
  if (good.length !== records.length) await attempt(good);
  const [count] = await settings.session.queryJson(`SELECT count(*)::BIGINT AS n FROM ${quoteIdentifier(BATCH_OUTPUT_TABLE)}`);
  return { rows: Number(count?.['n'] ?? 0), failures, ignoredColumns: ignored };
}

const STATEMENT_ERROR = /^(Parser|Binder|Catalog) Error/;

/** The records that pass `attempt`, splitting failing sets down to single records. */
async function isolateFailures(
  records: readonly JsonRecord[],
  attempt: (subset: readonly JsonRecord[]) => Promise<void>,
  failures: FlowRecordFailure[],
): Promise<JsonRecord[]> {
  if (records.length === 0) return [];
  try {
    await attempt(records);
    return [...records];
  } catch (error) {
    // A query that cannot be planned fails for any record: stop rather than dead-letter them all.
    if (STATEMENT_ERROR.test(duckDbMessage(error))) {
      throw new FlowError(`The streaming flow's SQL cannot run on this batch: ${duckDbMessage(error)}`, { cause: error });
    }
    if (records.length === 1) {
      failures.push({ record: records[0] as JsonRecord, reason: duckDbMessage(error) });
      return [];
    }
    const half = Math.ceil(records.length / 2);
    return [...(await isolateFailures(records.slice(0, half), attempt, failures)), ...(await isolateFailures(records.slice(half), attempt, failures))];
  }
}

async function materialize(settings: BatchFlowSettings, records: readonly JsonRecord[], fields: readonly NestedField[]): Promise<string[]> {
  const columns = settings.sql === undefined ? knownColumns(fields) : undefined;
  await runFlow(settings, records, columns);
  const described = (await settings.session.queryJson(`DESCRIBE ${quoteIdentifier(FLOW_RESULT_TABLE)}`)) as Array<{ column_name: string }>;
  const produced = new Map(described.map((r) => [r.column_name.toLowerCase(), r.column_name]));
  const select = fields.map((field) => {
    const source = produced.get(field.name.toLowerCase());
    const value = source === undefined ? 'NULL' : quoteIdentifier(source);
    return `CAST(${value} AS ${icebergToDuckDbType(field.type)}) AS ${quoteIdentifier(field.name)}`;
  });
  const wanted = new Set(fields.map((f) => f.name.toLowerCase()));
  // Without flow SQL the batch was staged with the table's types, so the casts cannot fail and the
  // output need not be materialised a second time.
  const kind = settings.sql === undefined ? 'VIEW' : 'TABLE';
  await settings.session.run(
    `CREATE OR REPLACE ${kind} ${quoteIdentifier(BATCH_OUTPUT_TABLE)} AS SELECT ${select.join(', ')} FROM ${quoteIdentifier(FLOW_RESULT_TABLE)}`,
  );
  return [...produced.entries()].filter(([lower]) => !wanted.has(lower)).map(([, name]) => name);
}

async function runFlow(settings: BatchFlowSettings, records: readonly JsonRecord[], columns: ReadonlyMap<string, string> | undefined): Promise<void> {
  await stageRecords({ session: settings.session, records, table: settings.view, tempDir: settings.tempDir, ...(columns === undefined ? {} : { columns }) });
  const sql = (settings.sql ?? `SELECT * FROM ${quoteIdentifier(settings.view)}`).trim().replace(/;+\s*$/, '');
  await settings.session.run(`CREATE OR REPLACE VIEW ${quoteIdentifier(FLOW_RESULT_TABLE)} AS SELECT * FROM (${sql})`);
}

/** The table's value columns as the JSON reader should type them (record columns have their own). */
function knownColumns(fields: readonly NestedField[]): Map<string, string> {
  const reserved = new Set<string>(RECORD_COLUMNS);
  return new Map(fields.filter((f) => !reserved.has(f.name)).map((f) => [f.name, icebergToDuckDbType(f.type)]));
}
