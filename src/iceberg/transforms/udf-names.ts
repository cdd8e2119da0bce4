/**
 * Names of the scalar functions src/duckdb/transform-udfs.ts registers on a DuckDB connection;
 * the SQL that duckdb-sql.ts generates calls them.
 */
/** `iceberg_murmur3_long(BIGINT) → INTEGER`: the hash of the 8-byte little-endian long form. */
export const MURMUR3_LONG_FUNCTION = 'iceberg_murmur3_long';
/** `iceberg_murmur3_bytes(BLOB) → INTEGER`: the hash of the bytes as they are. */
export const MURMUR3_BYTES_FUNCTION = 'iceberg_murmur3_bytes';
/** `iceberg_murmur3_unscaled(HUGEINT) → INTEGER`: the hash of a decimal's minimal two's-complement unscaled bytes. */
export const MURMUR3_UNSCALED_FUNCTION = 'iceberg_murmur3_unscaled';
