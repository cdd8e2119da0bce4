/**
 * Reads an Iceberg table with Trino (an independent implementation, Java, its own Parquet reader)
 * through Trino's HTTP client protocol: POST /v1/statement, then follow `nextUri` until the query
 * is finished, collecting `columns` and `data`.
 *
 * Values come back JSON-safe and in the forms test/interop/read_table.py prints, so the rows can be
 * compared with the other readers (test/interop/verify.ts canonicalises per Iceberg type):
 *   boolean → boolean; tinyint…integer → number; bigint → number (digit string beyond 2^53);
 *   real/double → number or "NaN"/"Infinity"/"-Infinity"; decimal → string at the column's scale;
 *   varchar/char/uuid → string; varbinary → lowercase hex; date → YYYY-MM-DD;
 *   time(p) → HH:MM:SS.fff…; timestamp(p) → YYYY-MM-DDTHH:MM:SS.fff…;
 *   timestamp(p) with time zone → the same with an explicit offset (+00:00 for UTC);
 *   array → array; map → object (keys as text); row → object by field name.
 * The session time zone is UTC, so timestamptz values arrive in UTC.
 */
import { ThundError } from '../../src/errors.js';
import { parseJson } from '../../src/iceberg/json.js';

export interface TrinoQueryOptions {
  /** Coordinator URI, e.g. http://127.0.0.1:PORT. */
  readonly uri: string;
  readonly user?: string;
  readonly catalog?: string;
  readonly schema?: string;
  /** Whole-query deadline (default 120 s). */
  readonly timeoutMs?: number;
}

/** Trino's type signature as the protocol sends it in `columns[].typeSignature`. */
export interface TrinoTypeSignature {
  readonly rawType: string;
  readonly arguments: readonly TrinoTypeArgument[];
}

type TrinoTypeArgument =
  | { readonly kind: 'TYPE'; readonly value: TrinoTypeSignature }
  | { readonly kind: 'NAMED_TYPE'; readonly value: { readonly fieldName?: { readonly name: string } | null; readonly typeSignature: TrinoTypeSignature } }
  | { readonly kind: 'LONG'; readonly value: number | bigint }
  | { readonly kind: 'VARIABLE'; readonly value: string };

export interface TrinoColumn {
  readonly name: string;
  /** Trino's type text, e.g. `decimal(12,2)`, `timestamp(6) with time zone`. */
  readonly type: string;
  readonly typeSignature: TrinoTypeSignature;
}

export interface TrinoQueryResult {
  readonly queryId: string;
  readonly columns: readonly TrinoColumn[];
  /** Raw positional rows as Trino sent them (integers beyond 2^53 as bigint). */
  readonly data: readonly (readonly unknown[])[];
}

export type TrinoValue = null | boolean | number | string | TrinoValue[] | { [key: string]: TrinoValue };

export interface TrinoReadArgs {
  readonly uri: string;
  /** The Trino catalog (the name of its etc/catalog/<name>.properties). */
  readonly catalog: string;
  /** `namespace.table` (one namespace level). */
  readonly table: string;
  /** A SQL predicate for a WHERE clause, in Trino's dialect. */
  readonly filter?: string;
  readonly user?: string;
}

export interface TrinoTable {
  readonly table: string;
  readonly columns: readonly TrinoColumn[];
  readonly rows: Record<string, TrinoValue>[];
  readonly rowCount: number;
  /** From the `$snapshots` metadata table, oldest first; ids as decimal strings. */
  readonly snapshots: { snapshotId: string; parentSnapshotId: string | null; operation: string | null }[];
}

const DEFAULT_USER = 'thund';
const RETRY_DELAY_MS = 100;

/** Runs one statement to completion and returns Trino's raw result. */
export async function runTrinoQuery(sql: string, options: TrinoQueryOptions): Promise<TrinoQueryResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const headers: Record<string, string> = {
    'X-Trino-User': options.user ?? DEFAULT_USER,
    'X-Trino-Source': 'thund-interop',
    'X-Trino-Time-Zone': 'UTC',
    // Without it Trino rounds every timestamp to milliseconds and drops the precision from the type.
    'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
  };
  if (options.catalog !== undefined) headers['X-Trino-Catalog'] = options.catalog;
  if (options.schema !== undefined) headers['X-Trino-Schema'] = options.schema;

  let page = await request(`${options.uri}/v1/statement`, { method: 'POST', headers, body: sql }, sql, deadline);
  let columns: TrinoColumn[] | undefined;
  const data: unknown[][] = [];
  for (;;) {
    if (page.error !== undefined) {
      const error = page.error;
      throw new ThundError('INTEROP_READER', `trino query ${page.id} failed: ${error.errorName ?? 'ERROR'}: ${error.message ?? '(no message)'}`, {
        context: { sql, queryId: page.id, errorType: error.errorType, errorName: error.errorName },
      });
    }
    if (page.columns !== undefined) columns ??= page.columns;
    if (page.data !== undefined) data.push(...page.data);
    if (page.nextUri === undefined) break;
    page = await request(page.nextUri, { method: 'GET', headers }, sql, deadline);
  }
  return { queryId: page.id, columns: columns ?? [], data };
}

/** Every row of a table (or those matching `filter`), normalised, plus its snapshot log. */
export async function readWithTrino(args: TrinoReadArgs): Promise<TrinoTable> {
  const [namespace, name, ...rest] = args.table.split('.');
  if (namespace === undefined || name === undefined || rest.length > 0 || namespace === '' || name === '') {
    throw new ThundError('INTEROP_READER', `readWithTrino needs namespace.table, got ${JSON.stringify(args.table)}`, { context: { table: args.table } });
  }
  const options = { uri: args.uri, user: args.user };
  const qualified = `${quoteIdentifier(args.catalog)}.${quoteIdentifier(namespace)}.${quoteIdentifier(name)}`;
  const where = args.filter === undefined ? '' : ` WHERE ${args.filter}`;
  const result = await runTrinoQuery(`SELECT * FROM ${qualified}${where}`, options);
  const rows = result.data.map((row) => {
    const out: Record<string, TrinoValue> = {};
    result.columns.forEach((column, i) => {
      out[column.name] = normalizeTrinoValue(row[i], column.typeSignature, column.name);
    });
    return out;
  });
  const snapshotsTable = `${quoteIdentifier(args.catalog)}.${quoteIdentifier(namespace)}.${quoteIdentifier(`${name}$snapshots`)}`;
  const log = await runTrinoQuery(
    `SELECT CAST(snapshot_id AS varchar), CAST(parent_id AS varchar), operation FROM ${snapshotsTable} ORDER BY committed_at, snapshot_id`,
    options,
  );
  const snapshots = log.data.map(([id, parent, operation]) => ({
    snapshotId: String(id),
    parentSnapshotId: parent === null || parent === undefined ? null : String(parent),
    operation: typeof operation === 'string' ? operation : null,
  }));
  return { table: args.table, columns: result.columns, rows, rowCount: rows.length, snapshots };
}

/** One value of the protocol's JSON, in the reader-neutral form described at the top. */
export function normalizeTrinoValue(value: unknown, type: TrinoTypeSignature, column: string): TrinoValue {
  if (value === null || value === undefined) return null;
  const raw = type.rawType;
  const fail = (why: string): never => {
    throw new ThundError('INTEROP_READER', `trino column ${column} (${raw}): ${why}: ${String(value)}`, { context: { column, type: raw } });
  };
  switch (raw) {
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('expected a boolean');
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint':
      if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
      return typeof value === 'number' && Number.isInteger(value) ? value : fail('expected an integer');
    case 'real':
    case 'double':
      if (typeof value === 'bigint') return Number(value);
      if (typeof value === 'number') return value;
      return value === 'NaN' || value === 'Infinity' || value === '-Infinity' ? value : fail('expected a number');
    case 'decimal':
    case 'varchar':
    case 'char':
    case 'uuid':
    case 'date':
      return typeof value === 'string' ? value : fail('expected text');
    case 'varbinary':
      return typeof value === 'string' ? Buffer.from(value, 'base64').toString('hex') : fail('expected base64 text');
    case 'time':
      return typeof value === 'string' ? value : fail('expected text');
    case 'timestamp':
      return typeof value === 'string' ? value.replace(' ', 'T') : fail('expected text');
    case 'timestamp with time zone':
      return typeof value === 'string' ? isoWithOffset(value) ?? fail('expected "date time zone" with UTC or an offset') : fail('expected text');
    case 'array': {
      const element = typeArgument(type, 0, column);
      return Array.isArray(value) ? value.map((v) => normalizeTrinoValue(v, element, column)) : fail('expected an array');
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return fail('expected an object');
      const keyType = typeArgument(type, 0, column);
      const valueType = typeArgument(type, 1, column);
      const out: Record<string, TrinoValue> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        out[String(normalizeTrinoValue(k, keyType, column))] = normalizeTrinoValue(v, valueType, column);
      }
      return out;
    }
    case 'row': {
      if (!Array.isArray(value)) return fail('expected an array of field values');
      const out: Record<string, TrinoValue> = {};
      type.arguments.forEach((argument, i) => {
        if (argument.kind !== 'NAMED_TYPE') fail(`row field ${i} has no named type`);
        const field = argument as Extract<TrinoTypeArgument, { kind: 'NAMED_TYPE' }>;
        const name = field.value.fieldName?.name ?? `field${i}`;
        out[name] = normalizeTrinoValue(value[i], field.value.typeSignature, `${column}.${name}`);
      });
      return out;
    }
    default:
      return fail('type not supported by the Trino reader');
  }
}

/**
 * The Iceberg type a Trino column type reads back as (Trino's Iceberg type mapping), in the text
 * form pyiceberg prints, for schema checks; nested and unknown types come back as `trino:<type>`.
 */
export function icebergTypeOfTrino(type: string): string {
  const t = type.replace(/\s+/g, ' ').trim().toLowerCase();
  const simple: Readonly<Record<string, string>> = {
    boolean: 'boolean',
    integer: 'int',
    bigint: 'long',
    real: 'float',
    double: 'double',
    date: 'date',
    varchar: 'string',
    varbinary: 'binary',
    uuid: 'uuid',
    'time(6)': 'time',
    'timestamp(6)': 'timestamp',
    'timestamp(6) with time zone': 'timestamptz',
    'timestamp(9)': 'timestamp_ns',
    'timestamp(9) with time zone': 'timestamptz_ns',
  };
  const known = simple[t];
  if (known !== undefined) return known;
  const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (decimal !== null) return `decimal(${decimal[1]}, ${decimal[2]})`;
  return `trino:${t}`;
}

/** `2024-01-01 12:34:56.123456 UTC` or `… +05:30` → `2024-01-01T12:34:56.123456+00:00` / `…+05:30`. */
function isoWithOffset(text: string): string | undefined {
  const match = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) (.+)$/.exec(text);
  if (match === null) return undefined;
  const [, date, time, zone] = match;
  if (zone === 'UTC' || zone === 'Z' || zone === 'Etc/UTC' || zone === 'GMT') return `${date}T${time}+00:00`;
  if (zone !== undefined && /^[+-]\d{2}:\d{2}$/.test(zone)) return `${date}T${time}${zone}`;
  return undefined;
}

function typeArgument(type: TrinoTypeSignature, index: number, column: string): TrinoTypeSignature {
  const argument = type.arguments[index];
  if (argument?.kind === 'TYPE') return argument.value;
  throw new ThundError('INTEROP_READER', `trino column ${column}: ${type.rawType} has no type argument ${index}`, { context: { column, type: type.rawType } });
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

interface QueryPage {
  readonly id: string;
  readonly nextUri?: string;
  readonly columns?: TrinoColumn[];
  readonly data?: unknown[][];
  readonly error?: { readonly message?: string; readonly errorName?: string; readonly errorType?: string };
}

/** One protocol request; 502/503/504 mean "try again" in Trino's protocol. */
async function request(url: string, init: RequestInit, sql: string, deadline: number): Promise<QueryPage> {
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new ThundError('INTEROP_READER', `trino query did not finish in time: ${sql}`, { retryable: true, context: { url } });
    }
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(remaining) });
    } catch (cause) {
      throw new ThundError('INTEROP_READER', `trino request ${init.method} ${url} failed: ${(cause as Error).message}`, { cause, context: { url } });
    }
    const text = await response.text();
    if (response.status === 502 || response.status === 503 || response.status === 504) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      continue;
    }
    if (!response.ok) {
      throw new ThundError('INTEROP_READER', `trino answered ${response.status} to ${init.method} ${url}: ${text.slice(0, 500)}`, {
        context: { url, status: response.status },
      });
    }
    const page = parseJson(text, `trino response from ${url}`) as QueryPage;
    if (typeof page !== 'object' || page === null || typeof page.id !== 'string') {
      throw new ThundError('INTEROP_READER', `trino sent an unexpected response to ${init.method} ${url}: ${text.slice(0, 500)}`, { context: { url } });
    }
    return page;
  }
}
