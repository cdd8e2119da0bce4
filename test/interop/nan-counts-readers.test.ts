/**
 * pyiceberg reads the nan_value_counts and NaN-free bounds Thund writes for double columns and
 * prunes by them: a table partitioned by identity(grp) has one file whose `d` is NaN on every
 * row, one with NaN and small values, and one without NaN. `d > 100` must plan only the file
 * without NaN (the all-NaN file is skipped by its count, the mixed one by its upper bound), and
 * `d IS NOT NaN` must skip the all-NaN file; the rows read are those DuckDB finds in the source.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive } from '../../src/iceberg/types.js';
import { committedPartitionedTable } from './committed-partitioned-table.js';
import { readWithPyiceberg } from './pyiceberg.js';

const TABLE = 'lake.nan_counts';
const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'grp', required: false, type: primitive('string') },
  { name: 'd', required: false, type: primitive('double') },
]);
const SOURCE = `
  SELECT range::BIGINT AS id, ['nan_only', 'mixed', 'clean'][range % 3 + 1] AS grp,
         CASE range % 3 WHEN 0 THEN (CASE WHEN range % 2 = 0 THEN 'nan'::DOUBLE ELSE -('nan'::DOUBLE) END)
                        WHEN 1 THEN (CASE WHEN range % 4 = 1 THEN 'nan'::DOUBLE ELSE (range % 50)::DOUBLE END)
                        ELSE 200 + range % 100 END AS d
  FROM range(3000)`;

let warehouse: string;
let session: DuckDbSession;
let files: DataFile[];

const read = (filter: string) =>
  readWithPyiceberg({ catalogDb: join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: TABLE, filter });
const groupOf = (path: string): string => files.find((f) => f.filePath === path)!.partition.get(1000) as string;
const sourceCount = async (where: string): Promise<number> =>
  Number((await session.queryJson(`SELECT count(*) AS n FROM (${SOURCE}) WHERE ${where}`))[0]!['n']);

beforeAll(async () => {
  session = await DuckDbSession.open();
  ({ warehouse, files } = await committedPartitionedTable({
    session,
    prefix: 'nan-counts-readers',
    table: TABLE,
    fields,
    partitionBy: [{ name: 'grp', transform: 'identity', sourceId: 2 }],
    query: SOURCE,
  }));
}, 120_000);

afterAll(() => {
  session?.close();
  if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
});

describe('NaN metrics read by pyiceberg', () => {
  it('d > 100 plans only the file without NaN', async () => {
    const table = await read('d > 100');
    expect(table.dataFiles.map((f) => groupOf(f.filePath))).toEqual(['clean']);
    // DuckDB orders NaN above every number; Iceberg (and IEEE) comparisons are false for NaN.
    expect(table.rowCount).toBe(await sourceCount('d > 100 AND NOT isnan(d)'));
  }, 300_000);

  it('d IS NOT NaN skips the all-NaN file', async () => {
    const table = await read('d IS NOT NaN');
    expect(table.dataFiles.map((f) => groupOf(f.filePath)).sort()).toEqual(['clean', 'mixed']);
    expect(table.rowCount).toBe(await sourceCount('NOT isnan(d)'));
  }, 300_000);
});
