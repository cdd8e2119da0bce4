/**
 * An Arrow table into a DuckDB temp table, a chunk of 2048 rows at a time through the appender:
 * the way rows given from code (the package API's append, overwrite, upsert) become a relation
 * the table writers read like any flow's output. Flat columns of the types Iceberg stores
 * directly; a column of another type is an error naming it.
 */
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { DataType, Table, Vector } from 'apache-arrow';
import { DataType as ArrowType } from 'apache-arrow/type';
import { InvalidInputError } from '../errors.js';
import { quoteIdentifier } from '../iceberg/duckdb-types.js';
import type { DuckDbApi } from './node-api.js';
import type { DuckDbSession } from './session.js';

const CHUNK_ROWS = 2048;
const MS_PER_DAY = 86_400_000;

interface ColumnStaging {
  readonly sqlType: string;
  readonly duckdbType: DuckDBType;
  readonly value: (raw: unknown) => DuckDBValue;
}

export async function stageArrowTable(session: DuckDbSession, table: Table, name: string): Promise<void> {
  const columns = table.schema.fields.map((field) => ({ field, staging: columnStaging(session.duckdb, field.name, field.type) }));
  const definition = columns.map(({ field, staging }) => `${quoteIdentifier(field.name)} ${staging.sqlType}`).join(', ');
  await session.run(`CREATE TEMP TABLE ${quoteIdentifier(name)} (${definition})`);
  const vectors = columns.map(({ field }) => table.getChild(field.name) as Vector);
  const appender = await session.connection.createAppender(name);
  try {
    for (let start = 0; start < table.numRows; start += CHUNK_ROWS) {
      const count = Math.min(CHUNK_ROWS, table.numRows - start);
      const chunk = session.duckdb.DuckDBDataChunk.create(
        columns.map(({ staging }) => staging.duckdbType),
        count,
      );
      columns.forEach(({ staging }, c) => {
        const vector = vectors[c]!;
        const values: DuckDBValue[] = new Array(count);
        for (let i = 0; i < count; i++) {
          const raw: unknown = vector.get(start + i);
          values[i] = raw === null || raw === undefined ? null : staging.value(raw);
        }
        chunk.setColumnValues(c, values);
      });
      appender.appendDataChunk(chunk);
    }
  } finally {
    appender.closeSync();
  }
}

function columnStaging(duckdb: DuckDbApi, column: string, type: DataType): ColumnStaging {
  const same = (raw: unknown): DuckDBValue => raw as DuckDBValue;
  if (ArrowType.isBool(type)) return { sqlType: 'BOOLEAN', duckdbType: duckdb.BOOLEAN, value: same };
  if (ArrowType.isInt(type)) {
    if (type.bitWidth <= 16 || (type.bitWidth === 32 && type.isSigned)) return { sqlType: 'INTEGER', duckdbType: duckdb.INTEGER, value: same };
    if (type.bitWidth === 32 || type.isSigned) return { sqlType: 'BIGINT', duckdbType: duckdb.BIGINT, value: (raw) => BigInt(raw as number | bigint) };
  }
  if (ArrowType.isFloat(type)) {
    return type.precision === 2 ? { sqlType: 'DOUBLE', duckdbType: duckdb.DOUBLE, value: same } : { sqlType: 'FLOAT', duckdbType: duckdb.FLOAT, value: same };
  }
  if (ArrowType.isUtf8(type) || ArrowType.isLargeUtf8(type) || (ArrowType.isDictionary(type) && ArrowType.isUtf8(type.dictionary))) {
    return { sqlType: 'VARCHAR', duckdbType: duckdb.VARCHAR, value: same };
  }
  // Arrow gives dates and timestamps as epoch milliseconds (fractions carry the microseconds).
  if (ArrowType.isDate(type)) {
    return { sqlType: 'DATE', duckdbType: duckdb.DATE, value: (raw) => new duckdb.DuckDBDateValue(Math.floor(Number(raw) / MS_PER_DAY)) };
  }
  if (ArrowType.isTimestamp(type)) {
    const micros = (raw: unknown): bigint => BigInt(Math.round(Number(raw) * 1000));
    // Arrow's own inference (a Date column) leaves the zone undefined, a declared type null: both mean no zone.
    return (type.timezone ?? null) === null
      ? { sqlType: 'TIMESTAMP', duckdbType: duckdb.TIMESTAMP, value: (raw) => new duckdb.DuckDBTimestampValue(micros(raw)) }
      : { sqlType: 'TIMESTAMPTZ', duckdbType: duckdb.TIMESTAMPTZ, value: (raw) => new duckdb.DuckDBTimestampTZValue(micros(raw)) };
  }
  throw new InvalidInputError(
    `column "${column}" has Arrow type ${String(type)}; rows given as Arrow take boolean, integer, floating point, string, date and timestamp columns (give other types as a DuckDB query)`,
    { context: { column, arrowType: String(type) } },
  );
}
