/**
 * A DuckDB query's rows as an Arrow table (the package API's read of a snapshot): flat columns of
 * the types Iceberg stores directly; a column of another type is an error naming it.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { makeData, makeVector, Table, vectorFromArray, type Vector } from 'apache-arrow';
import { Bool, DateDay, Float32, Float64, Int32, Int64, TimestampMicrosecond, Utf8 } from 'apache-arrow/type';
import { InvalidInputError } from '../errors.js';
import type { DuckDbSession } from './session.js';

export async function queryArrow(session: DuckDbSession, sql: string): Promise<Table> {
  const { DuckDBTypeId } = session.duckdb;
  const reader = await session.connection.runAndReadAll(sql);
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const columns = reader.getColumns();
  const vectors: Record<string, Vector> = {};
  names.forEach((name, c) => {
    const type = types[c]!;
    const values = columns[c] ?? [];
    // Booleans, numbers, bigints and strings come from DuckDB as the JS values Arrow's builders take.
    const js = (): unknown[] => [...values];
    switch (type.typeId) {
      case DuckDBTypeId.BOOLEAN:
        vectors[name] = vectorFromArray(js(), new Bool());
        return;
      case DuckDBTypeId.TINYINT:
      case DuckDBTypeId.SMALLINT:
      case DuckDBTypeId.INTEGER:
        vectors[name] = vectorFromArray(js(), new Int32());
        return;
      case DuckDBTypeId.BIGINT:
        vectors[name] = vectorFromArray(js(), new Int64());
        return;
      case DuckDBTypeId.FLOAT:
        vectors[name] = vectorFromArray(js(), new Float32());
        return;
      case DuckDBTypeId.DOUBLE:
        vectors[name] = vectorFromArray(js(), new Float64());
        return;
      case DuckDBTypeId.VARCHAR:
        vectors[name] = vectorFromArray(js(), new Utf8());
        return;
      case DuckDBTypeId.DATE:
        vectors[name] = vectorFromArray(
          values.map((value) => (value === null ? null : new Date((value as { days: number }).days * 86_400_000))),
          new DateDay(),
        );
        return;
      case DuckDBTypeId.TIMESTAMP:
        vectors[name] = microsVector(values, new TimestampMicrosecond());
        return;
      case DuckDBTypeId.TIMESTAMP_TZ:
        vectors[name] = microsVector(values, new TimestampMicrosecond('UTC'));
        return;
      default:
        throw new InvalidInputError(
          `column "${name}" has type ${String(type)}; reading as Arrow takes boolean, integer, floating point, string, date and timestamp columns (cast others in a DuckDB query)`,
          { context: { column: name, type: String(type) } },
        );
    }
  });
  return new Table(vectors);
}

/** Microseconds as they are: Arrow's builders take milliseconds as numbers, which would round them. */
function microsVector(values: readonly DuckDBValue[], type: TimestampMicrosecond): Vector {
  const data = new BigInt64Array(values.length);
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  let nullCount = 0;
  values.forEach((value, i) => {
    if (value === null) {
      nullCount += 1;
      return;
    }
    data[i] = (value as { micros: bigint }).micros;
    nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  return makeVector(makeData({ type, length: values.length, nullCount, nullBitmap, data }));
}
