/**
 * Turns a micro-batch into rows shaped like the target table. Without flow SQL, into an existing
 * table, the batch file is first tried straight through the writer (writeBatchThroughViews: read
 * once, nothing materialised; measured at about a third less DuckDB time per batch). Otherwise,
 * and whenever that fails: stage the records, run the flow SQL over them (a view) and cast its
 * output onto the table's columns, materialised in DuckDB once so every error shows up here and
 * not halfway through writing files. A batch that fails is split in halves until the records
 * that fail alone are found; those become dead letters with DuckDB's reason, and the rest go on
 * (a poison record never stops the stream).
 */
import { FlowError } from '../../../errors.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';
import { icebergToDuckDbType } from '../../../iceberg/duckdb-types.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { NestedField } from '../../../iceberg/types.js';
import { RECORD_COLUMNS, stageRecords, stageRecordsAsView, type JsonRecord } from './batch-staging.js';
import { queryBody } from '../../../pipeline/query-body.js';

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
  /** Output columns the table does not have (not written unless the table evolves to take them). */
  readonly ignoredColumns: readonly string[];
  /** The same columns with their DuckDB types. */
  readonly extraColumns: readonly DescribedColumn[];
}

/**
 * Stages and runs the flow only, then describes the output (to create the table from); undefined
 * when no record goes through (the failing ones are found again by runBatchFlow).
 */
export async function describeBatchOutput(
  settings: BatchFlowSettings,
  records: readonly JsonRecord[],
  /** Types the source knows for some value fields (writer schemas); the other fields are detected. */
  columnTypes?: ReadonlyMap<string, string>,
): Promise<DescribedColumn[] | undefined> {
  const known = columnTypes !== undefined && columnTypes.size > 0 ? columnTypes : undefined;
  const good = await isolateFailures(records, (subset) => runFlow(settings, subset, known, known !== undefined), []);
  if (good.length === 0) return undefined;
  if (good.length !== records.length) await runFlow(settings, good, known, known !== undefined);
  const rows = (await settings.session.queryJson(`DESCRIBE ${quoteIdentifier(FLOW_RESULT_TABLE)}`)) as Array<{ column_name: string; column_type: string }>;
  return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
}

/**
 * The fast way for a flow without SQL into an existing table: the batch file is read by the
 * writer's COPY itself, through views typed with the table's columns, instead of being
 * materialised first. Undefined when that fails (a value that does not cast, say): the caller
 * then takes runBatchFlow's way, which finds the failing records.
 */
export async function writeBatchThroughViews(
  settings: BatchFlowSettings,
  records: readonly JsonRecord[],
  fields: readonly NestedField[],
  write: (query: string) => Promise<DataFile[]>,
): Promise<{ readonly rows: number; readonly files: DataFile[]; readonly ignoredColumns: readonly string[] } | undefined> {
  if (settings.sql !== undefined) return undefined;
  const staged = await stageRecordsAsView({ session: settings.session, records, table: settings.view, tempDir: settings.tempDir, columns: knownColumns(fields) });
  try {
    // No flow SQL reads the batch by its view name here, so the file's view is the flow's result.
    await settings.session.run(`CREATE OR REPLACE VIEW ${quoteIdentifier(FLOW_RESULT_TABLE)} AS SELECT * FROM ${quoteIdentifier(staged.view)}`);
    const ignoredColumns = (await selectTableColumns(settings, fields, 'VIEW')).map((c) => c.name);
    const files = await write(`SELECT * FROM ${quoteIdentifier(BATCH_OUTPUT_TABLE)}`);
    return { rows: files.reduce((sum, f) => sum + Number(f.recordCount), 0), files, ignoredColumns };
  } catch {
    return undefined;
  } finally {
    await staged.release();
  }
}

/**
 * Leaves BATCH_OUTPUT_TABLE holding exactly the table's columns for the records that went
 * through; the records that failed on their own come back with the reason.
 */
export async function runBatchFlow(
  settings: BatchFlowSettings,
  records: readonly JsonRecord[],
  fields: readonly NestedField[],
  /** Without flow SQL: read the value fields the table lacks too (typed as DuckDB detects them), to evolve the table to. */
  readNewFields = false,
  /** With readNewFields: types the source knows for value fields (writer schemas), for the fields the table lacks. */
  columnTypes?: ReadonlyMap<string, string>,
): Promise<BatchFlowResult> {
  const failures: FlowRecordFailure[] = [];
  let extra: DescribedColumn[] = [];
  const attempt = async (subset: readonly JsonRecord[]): Promise<void> => {
    extra = await materialize(settings, subset, fields, readNewFields, columnTypes);
  };
  const good = await isolateFailures(records, attempt, failures);
  if (good.length === 0) return { rows: 0, failures, ignoredColumns: [], extraColumns: [] };
  if (good.length !== records.length) await attempt(good);
  const [count] = await settings.session.queryJson(`SELECT count(*)::BIGINT AS n FROM ${quoteIdentifier(BATCH_OUTPUT_TABLE)}`);
  return { rows: Number(count?.['n'] ?? 0), failures, ignoredColumns: extra.map((c) => c.name), extraColumns: extra };
}

/**
 * Rebuilds BATCH_OUTPUT_TABLE from the last runBatchFlow's output for other fields (the evolved
 * schema, whose new columns have the types the output was described with).
 */
export async function projectBatchOutput(settings: BatchFlowSettings, fields: readonly NestedField[]): Promise<void> {
  await selectTableColumns(settings, fields, 'TABLE');
}

const STATEMENT_ERROR = /^(Parser|Binder|Catalog) Error/;
/** Failures of the batch as a whole (memory, disk), not of a record: splitting would not find a culprit. */
const RESOURCE_ERROR = /^(Out of Memory|IO) Error/;

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
    if (RESOURCE_ERROR.test(duckDbMessage(error))) {
      throw new FlowError(`DuckDB could not stage the batch of ${records.length} records: ${duckDbMessage(error)} (a smaller batch or a higher memory limit helps)`, { cause: error, retryable: true });
    }
    if (records.length === 1) {
      failures.push({ record: records[0] as JsonRecord, reason: duckDbMessage(error) });
      return [];
    }
    const half = Math.ceil(records.length / 2);
    return [...(await isolateFailures(records.slice(0, half), attempt, failures)), ...(await isolateFailures(records.slice(half), attempt, failures))];
  }
}

async function materialize(
  settings: BatchFlowSettings,
  records: readonly JsonRecord[],
  fields: readonly NestedField[],
  readNewFields: boolean,
  columnTypes: ReadonlyMap<string, string> | undefined,
): Promise<DescribedColumn[]> {
  const columns = settings.sql === undefined ? knownColumns(fields) : undefined;
  if (columns !== undefined && readNewFields) for (const [name, type] of columnTypes ?? []) if (!columns.has(name)) columns.set(name, type);
  await runFlow(settings, records, columns, readNewFields);
  // Without flow SQL the batch was staged with the table's types, so the casts cannot fail and the
  // output need not be materialised a second time.
  return selectTableColumns(settings, fields, settings.sql === undefined ? 'VIEW' : 'TABLE');
}

/** BATCH_OUTPUT_TABLE: the flow's result cast onto the table's columns; returns the flow's columns the table lacks. */
async function selectTableColumns(settings: BatchFlowSettings, fields: readonly NestedField[], kind: 'VIEW' | 'TABLE'): Promise<DescribedColumn[]> {
  const described = (await settings.session.queryJson(`DESCRIBE ${quoteIdentifier(FLOW_RESULT_TABLE)}`)) as Array<{ column_name: string; column_type: string }>;
  const produced = new Map(described.map((r) => [r.column_name.toLowerCase(), r.column_name]));
  const select = fields.map((field) => {
    const source = produced.get(field.name.toLowerCase());
    const value = source === undefined ? 'NULL' : quoteIdentifier(source);
    return `CAST(${value} AS ${icebergToDuckDbType(field.type)}) AS ${quoteIdentifier(field.name)}`;
  });
  const wanted = new Set(fields.map((f) => f.name.toLowerCase()));
  await dropOtherKind(settings.session, kind);
  await settings.session.run(
    `CREATE OR REPLACE ${kind} ${quoteIdentifier(BATCH_OUTPUT_TABLE)} AS SELECT ${select.join(', ')} FROM ${quoteIdentifier(FLOW_RESULT_TABLE)}`,
  );
  return described.filter((r) => !wanted.has(r.column_name.toLowerCase())).map((r) => ({ name: r.column_name, type: r.column_type }));
}

/**
 * The output is a view for one batch and a table for another (a batch with new fields is
 * materialised), and CREATE OR REPLACE cannot change the kind.
 */
async function dropOtherKind(session: DuckDbSession, kind: 'VIEW' | 'TABLE'): Promise<void> {
  // Looked up only when the kind may change, so the fast path pays no catalog query per batch.
  if (outputKinds.get(session) === kind) return;
  outputKinds.delete(session);
  const other = kind === 'VIEW' ? 'table' : 'view';
  const existing = await session.queryJson(`SELECT 1 FROM duckdb_${other}s() WHERE ${other}_name = ${quoteLiteral(BATCH_OUTPUT_TABLE)} AND NOT internal`);
  if (existing.length > 0) await session.run(`DROP ${other.toUpperCase()} ${quoteIdentifier(BATCH_OUTPUT_TABLE)}`);
  outputKinds.set(session, kind);
}

/** The kind BATCH_OUTPUT_TABLE last had, per session. */
const outputKinds = new WeakMap<DuckDbSession, 'VIEW' | 'TABLE'>();

async function runFlow(settings: BatchFlowSettings, records: readonly JsonRecord[], columns: ReadonlyMap<string, string> | undefined, readOtherFields = false): Promise<void> {
  await stageRecords({ session: settings.session, records, table: settings.view, tempDir: settings.tempDir, readOtherFields, ...(columns === undefined ? {} : { columns }) });
  const sql = queryBody(settings.sql ?? `SELECT * FROM ${quoteIdentifier(settings.view)}`);
  await settings.session.run(`CREATE OR REPLACE VIEW ${quoteIdentifier(FLOW_RESULT_TABLE)} AS SELECT * FROM (${sql})`);
}

/** The table's value columns as the JSON reader should type them (record columns have their own). */
function knownColumns(fields: readonly NestedField[]): Map<string, string> {
  const reserved = new Set<string>(RECORD_COLUMNS);
  return new Map(fields.filter((f) => !reserved.has(f.name)).map((f) => [f.name, icebergToDuckDbType(f.type)]));
}
