/**
 * NaN counts of the float and double columns of written files. RETURN_STATS says only whether a
 * column holds a NaN (`has_nan`), while Iceberg's `nan_value_counts` wants how many; so the files
 * whose stats say `has_nan` are read back once, all in one aggregate query that touches only
 * their NaN-holding columns: files without NaN cost nothing. The same query gives each column's
 * NaN-free min and max as text, the bounds readers may prune with (NaN is never a bound).
 * Fields in lists and maps are skipped: they get no counts (Java's convention, data-file-metrics.ts).
 */
import { duckDbColumnPath, quoteIdentifier } from '../iceberg/duckdb-types.js';
import { allFields } from '../iceberg/schema.js';
import type { Schema } from '../iceberg/types.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { normalizeColumnStatistics, type FileNanStats, type NanColumnStats } from './data-file-metrics.js';
import { copyFailure, type CopyStatsRow } from './parquet-copy.js';

/** The float/double columns, outside lists and maps, by RETURN_STATS path, with their SQL reference. */
function floatingColumns(schema: Pick<Schema, 'fields'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const { field, path, inRepeated } of allFields(schema)) {
    if (inRepeated || (field.type.kind !== 'float' && field.type.kind !== 'double')) continue;
    const quoted = duckDbColumnPath(path);
    out.set(quoted, `f.${quoted}`);
  }
  return out;
}

/** `base`, prefixed with `_` until no top-level column of the schema has the name (case-insensitively). */
function unusedColumnName(schema: Pick<Schema, 'fields'>, base: string): string {
  const taken = new Set(schema.fields.map((f) => f.name.toLowerCase()));
  let name = base;
  while (taken.has(name.toLowerCase())) name = `_${name}`;
  return name;
}

/** File name → NaN stats of its columns that hold a NaN; files without NaN are absent. */
export async function countNans(
  session: DuckDbSession,
  writerName: string,
  schema: Pick<Schema, 'fields'>,
  rows: readonly CopyStatsRow[],
): Promise<Map<string, FileNanStats>> {
  const floating = floatingColumns(schema);
  const withNan = new Map<string, string[]>();
  for (const row of rows) {
    const paths = [...normalizeColumnStatistics(row.column_statistics)]
      .filter(([path, stats]) => floating.has(path) && stats.get('has_nan') === 'true')
      .map(([path]) => path);
    if (paths.length > 0) withNan.set(row.filename, paths);
  }
  const out = new Map<string, FileNanStats>();
  if (withNan.size === 0) return out;
  const columns = [...new Set([...withNan.values()].flat())];
  const aggregates = columns.flatMap((path, i) => {
    const column = floating.get(path)!;
    const notNan = `FILTER (WHERE NOT isnan(${column}))`;
    return [
      `count(*) FILTER (WHERE isnan(${column})) AS n${i}`,
      `CAST(min(${column}) ${notNan} AS VARCHAR) AS lo${i}`,
      `CAST(max(${column}) ${notNan} AS VARCHAR) AS hi${i}`,
    ];
  });
  const files = [...withNan.keys()].map(quoteLiteral).join(', ');
  const fileColumn = unusedColumnName(schema, '__thund_file');
  // hive_partitioning off: a partitioned write's `key=value` folders are not columns of the files.
  const sql =
    `SELECT ${quoteIdentifier(fileColumn)} AS file, ${aggregates.join(', ')}` +
    ` FROM read_parquet([${files}], filename = ${quoteLiteral(fileColumn)}, hive_partitioning = false) AS f GROUP BY 1`;
  let result: Record<string, unknown>[];
  try {
    result = await session.queryJson(sql);
  } catch (error) {
    throw copyFailure(writerName, 'Counting the NaN values of the written files', error);
  }
  for (const record of result) {
    const filename = String(record['file']);
    const stats = new Map<string, NanColumnStats>();
    for (const path of withNan.get(filename) ?? []) {
      const i = columns.indexOf(path);
      const text = (key: string): string | undefined => (record[key] === null || record[key] === undefined ? undefined : String(record[key]));
      stats.set(path, { nanCount: BigInt(String(record[`n${i}`])), min: text(`lo${i}`), max: text(`hi${i}`) });
    }
    out.set(filename, stats);
  }
  return out;
}
