/**
 * The murmur3 hashes behind bucket[N] as DuckDB scalar functions, so a whole batch is bucketed
 * inside one query (DuckDB hands each function 2048-value vectors; no row objects are built).
 * Measured as count(DISTINCT bucket[16]) over 1M rows on 2 shared cores: longs ≈70 ms, short
 * UTF-8 strings ≈0.8 s. The same hash as pure SQL (bit arithmetic on UBIGINT, list_reduce over
 * 4-byte blocks of hex text) took ≈0.8 s and ≈3.6 s.
 */
import { duckdb } from './node-api.js';
import type { DuckDBBigIntVector, DuckDBBlobVector, DuckDBConnection, DuckDBHugeIntVector, DuckDBIntegerVector, DuckDBScalarFunction } from '@duckdb/node-api';
import { minimalTwosComplement } from '../iceberg/bounds.js';
import { murmur3Hash, murmur3HashLong } from '../iceberg/transforms/murmur3.js';
import { MURMUR3_BYTES_FUNCTION, MURMUR3_LONG_FUNCTION, MURMUR3_UNSCALED_FUNCTION } from '../iceberg/transforms/udf-names.js';

const registered = new WeakSet<DuckDBConnection>();

function vectorFunction<V, T>(
  name: string,
  parameter: typeof duckdb.BIGINT | typeof duckdb.BLOB | typeof duckdb.HUGEINT,
  read: (vector: V, row: number) => T | null,
  hash: (value: T) => number,
): DuckDBScalarFunction {
  return duckdb.DuckDBScalarFunction.create({
    name,
    returnType: duckdb.INTEGER,
    parameterTypes: [parameter],
    mainFunction: (_info, input, output) => {
      const vector = input.getColumnVector(0) as V;
      const out = output as DuckDBIntegerVector;
      const rows = input.rowCount;
      for (let row = 0; row < rows; row++) {
        const value = read(vector, row);
        out.setItem(row, value === null ? null : hash(value));
      }
      out.flush();
    },
  });
}

/** Registers the hash functions on a connection (once; later calls do nothing). */
export function registerTransformFunctions(connection: DuckDBConnection): void {
  if (registered.has(connection)) return;
  const functions = [
    vectorFunction(MURMUR3_LONG_FUNCTION, duckdb.BIGINT, (v: DuckDBBigIntVector, row) => v.getItem(row), murmur3HashLong),
    // getItemBytes reads the bytes without the copy getItem makes.
    vectorFunction(MURMUR3_BYTES_FUNCTION, duckdb.BLOB, (v: DuckDBBlobVector, row) => v.getItemBytes(row), murmur3Hash),
    vectorFunction(MURMUR3_UNSCALED_FUNCTION, duckdb.HUGEINT, (v: DuckDBHugeIntVector, row) => v.getItem(row), (u: bigint) =>
      murmur3Hash(minimalTwosComplement(u)),
    ),
  ];
  for (const f of functions) connection.registerScalarFunction(f);
  registered.add(connection);
}
