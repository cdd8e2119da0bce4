/**
 * DELETE FROM table WHERE <predicate> as one snapshot. Candidate data files are pruned by
 * partition values and column bounds; DuckDB reads their live rows with file name and row
 * position and selects the matching ones; `write.delete.mode` picks merge-on-read (position
 * deletes, whole files removed when all their rows go) or copy-on-write (files rewritten).
 */
import { InvalidInputError } from '../errors.js';
import { currentSchema } from '../iceberg/snapshot-ancestry.js';
import { duckDbMessage } from '../duckdb/session.js';
import { planScan } from './delete-planning.js';
import { FILE_COLUMN, openLiveRows, POS_COLUMN } from './read-rows.js';
import { changesForMatches, rowLevelMode } from './row-changes.js';
import { parseRowFilter } from './row-filter.js';
import { commitRowDelta, tempName, type RowOperationResult, type RowOperationTarget } from './row-operation.js';

export async function deleteWhere(target: RowOperationTarget, predicateSql: string): Promise<RowOperationResult> {
  const { session, io } = target;
  const { metadata } = await target.catalog.loadTable(target.identifier);
  const mode = rowLevelMode(metadata, 'write.delete.mode');
  const schema = currentSchema(metadata);
  const filter = await parseRowFilter(session, schema, predicateSql);
  const plan = await planScan(io, metadata, { filter });
  const matched = tempName('matched');
  const rows = await openLiveRows({ session, io, schema, tasks: plan.tasks, positions: true });
  try {
    try {
      await session.run(
        `CREATE TEMP TABLE ${matched} AS SELECT ${FILE_COLUMN} AS file_path, ${POS_COLUMN} AS pos FROM (${rows.sql}) WHERE (${predicateSql})`,
      );
    } catch (error) {
      throw new InvalidInputError(`delete where ${predicateSql}: ${duckDbMessage(error)}`, { cause: error, context: { predicate: predicateSql } });
    }
    const changes = await changesForMatches({
      session,
      io,
      metadata,
      tasks: plan.tasks,
      matchedTable: matched,
      mode,
      writerName: `delete where ${predicateSql}`,
      liveRowsAtLeast: rows.liveRowsAtLeast,
    });
    const addedRows = changes.addedDataFiles.reduce((sum, file) => sum + file.recordCount, 0n);
    const outcome = { attempts: 0, mode, addedRows, ...changes };
    if (changes.deletedRows === 0n) return { ...outcome, snapshot: undefined };
    const committed = await commitRowDelta({ target, metadata, operation: `delete where ${predicateSql}`, filter, ...changes });
    return { ...outcome, ...committed };
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${matched}`).catch(() => undefined);
    await rows.release();
  }
}
