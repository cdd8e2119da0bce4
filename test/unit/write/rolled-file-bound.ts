/**
 * The file-size bound Thund documents for rolled data files (README, "write.target-file-size-bytes"):
 * DuckDB rolls a file at a row-group boundary once it has reached the target, and as each of its
 * threads may be flushing one row group into the file when that happens, a file holds at most one
 * row group per DuckDB thread beyond the target. So the first of a file's last `threads` row groups
 * starts at or before the target. This holds however loaded the machine is; "smaller than twice the
 * target" did not (a file got two 2.4 MB row groups against a 2 MB target under load).
 */
import { expect } from 'vitest';
import { quoteLiteral, type DuckDbSession } from '../../../src/duckdb/session.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';

export async function expectRolledAtTarget(session: DuckDbSession, files: readonly DataFile[], target: number): Promise<void> {
  const [setting] = await session.queryJson(`SELECT current_setting('threads')::INTEGER AS threads`);
  const threads = Number(setting?.['threads']);
  expect(threads).toBeGreaterThan(0);
  for (const file of files) {
    const path = new URL(file.filePath).pathname;
    const groups = await session.queryJson(
      `SELECT row_group_id::INTEGER AS id, min(coalesce(dictionary_page_offset, data_page_offset))::BIGINT AS start
       FROM parquet_metadata(${quoteLiteral(path)}) GROUP BY row_group_id ORDER BY row_group_id`,
    );
    if (groups.length <= threads) continue;
    const firstOfLast = groups[groups.length - threads];
    expect({ file: path, start: Number(firstOfLast?.['start']) <= target }).toEqual({ file: path, start: true });
  }
}
