/**
 * SCD type 1: one row per key holding the latest event by sequence. The state is the target's
 * rows plus `__sequence` (the sequence of the event that produced the row) and `__deleted`
 * (tombstones of deleted keys, so an older event arriving later is ignored instead of
 * resurrecting the row). The Iceberg target holds the rows with `__deleted` false, without the
 * two hidden columns.
 *
 * A truncate at sequence T tombstones every key whose row is older than T and drops the batch's
 * events older than T. Across batches the order of an old event against an earlier truncate is
 * only known for keys the state held at the truncate (they are tombstones).
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { DELETED_COLUMN, OP_COLUMN, SEQUENCE_COLUMN, type ApplyChangesOptions } from './cdc-options.js';
import type { ChangeSet, ChangeStats } from './change-set.js';
import type { NormalizedChanges } from './cdc-normalize.js';
import { countRows, identList, equalValues } from './sql.js';

export interface Scd1Result {
  readonly changeSet: ChangeSet;
  /** The complete new state (same columns as the state given). */
  readonly newState: string;
  readonly stats: ChangeStats;
}

export function scd1StateColumns(columns: readonly string[]): string[] {
  return [...columns, SEQUENCE_COLUMN, DELETED_COLUMN];
}

export async function computeScd1(
  session: DuckDbSession,
  state: string,
  changes: NormalizedChanges,
  options: ApplyChangesOptions,
  prefix: string,
): Promise<Scd1Result> {
  const t = (suffix: string): string => quoteIdentifier(`${prefix}__${suffix}`);
  const keys = options.keys;
  const data = changes.columns.filter((c) => !keys.includes(c));
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const deleted = quoteIdentifier(DELETED_COLUMN);
  const input = quoteIdentifier(changes.relation);

  const truncateAt = `(SELECT max(${seq}) FROM ${input} WHERE ${op} = 'truncate')`;
  const isTruncated = `(${truncateAt} IS NOT NULL AND s.${seq} < ${truncateAt})`;
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('base')} AS SELECT ${identList(keys, 's.')},
       ${data.map((c) => `CASE WHEN ${isTruncated} THEN NULL ELSE s.${quoteIdentifier(c)} END AS ${quoteIdentifier(c)}`).join(', ')}${data.length > 0 ? ',' : ''}
       CASE WHEN ${isTruncated} THEN ${truncateAt} ELSE s.${seq} END AS ${seq},
       s.${deleted} OR ${isTruncated} AS ${deleted}
     FROM ${quoteIdentifier(state)} s`,
  );
  // Events the target already reflects (an equal or newer sequence for the key, or before a truncate) are ignored.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('events')} AS SELECT c.* FROM ${input} c
     WHERE c.${op} <> 'truncate' AND (${truncateAt} IS NULL OR c.${seq} >= ${truncateAt})
       AND NOT EXISTS (SELECT 1 FROM ${t('base')} b WHERE ${equalValues(keys, 'b', 'c')} AND b.${seq} >= c.${seq})`,
  );
  const timeline = `SELECT ${identList(changes.columns)}, ${seq}, ${op} FROM ${t('events')}
    UNION ALL SELECT ${identList(changes.columns, 'b.')}, b.${seq}, CASE WHEN b.${deleted} THEN 'delete' ELSE 'upsert' END
    FROM ${t('base')} b WHERE EXISTS (SELECT 1 FROM ${t('events')} e WHERE ${equalValues(keys, 'e', 'b')})`;
  const byKey = `PARTITION BY ${identList(keys)}`;
  // With ignore_null_updates a null keeps the value of the latest event since the last delete.
  const segmented = `SELECT *, sum(CASE WHEN ${op} = 'delete' THEN 1 ELSE 0 END) OVER (${byKey} ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS __segment FROM (${timeline})`;
  const value = (c: string): string =>
    options.ignoreNullUpdates
      ? `last_value(${quoteIdentifier(c)} IGNORE NULLS) OVER (${byKey}, __segment ORDER BY ${seq} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ${quoteIdentifier(c)}`
      : quoteIdentifier(c);
  const columnsOut = [...keys.map((k) => quoteIdentifier(k)), ...data.map(value)].join(', ');
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('latest')} AS
     SELECT ${identList(changes.columns)}, ${seq}, ${op} = 'delete' AS ${deleted} FROM (
       SELECT ${columnsOut}, ${seq}, ${op} FROM (${segmented})
       QUALIFY row_number() OVER (${byKey} ORDER BY ${seq} DESC) = 1)`,
  );
  const stateColumns = scd1StateColumns(changes.columns);
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('new_state')} AS
     SELECT ${identList(stateColumns)} FROM ${t('base')} b WHERE NOT EXISTS (SELECT 1 FROM ${t('latest')} l WHERE ${equalValues(keys, 'l', 'b')})
     UNION ALL SELECT ${identList(stateColumns)} FROM ${t('latest')}`,
  );
  // Only keys with applied events change, unless a truncate tombstoned older rows of any key.
  const changedKeys = `(${truncateAt} IS NOT NULL OR EXISTS (SELECT 1 FROM ${t('latest')} l WHERE ${equalValues(keys, 'l', 'v')}))`;
  const visible = (relation: string): string => `SELECT ${identList(changes.columns)} FROM ${relation} v WHERE NOT ${deleted} AND ${changedKeys}`;
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('inserts')} AS ${visible(t('new_state'))} EXCEPT ${visible(quoteIdentifier(state))}`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('deletes')} AS SELECT DISTINCT ${identList(keys)} FROM (${visible(quoteIdentifier(state))} EXCEPT ${visible(t('new_state'))})`,
  );
  const events = await countRows(session, input);
  const applied = await countRows(session, t('events'));
  return {
    changeSet: { deletes: `${prefix}__deletes`, inserts: `${prefix}__inserts`, deleteKeyColumns: keys },
    newState: `${prefix}__new_state`,
    stats: {
      events,
      ignoredEvents: events - applied - (await countRows(session, input, `${op} = 'truncate'`)),
      deletedRows: await countRows(session, t('deletes')),
      insertedRows: await countRows(session, t('inserts')),
    },
  };
}
