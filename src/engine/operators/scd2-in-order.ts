/**
 * The SCD2 shortcut for keys whose events in the batch are all later than every sequence value
 * the history holds (of any key: the history's watermark), at distinct sequence values. Such
 * events can only act on the key's current version and on each other, in sequence order, so no
 * timeline is rebuilt: an upsert opens a version when nothing or a delete comes before it or its
 * values differ from the event (or current version) before it, and is absorbed otherwise; a
 * version, the current one included, ends at the next delete or opening upsert. The change rows
 * are the ones rebuilding the key's history would give (scd2.ts), without its union with the old
 * versions and the history; the other events are left to it.
 *
 * Only without ignoreNullUpdates and with every data column tracked: there an event's values are
 * its own, and equal tracked values mean equal versions.
 *
 * The batch is read once into one table (`split`): every event with its key's current version,
 * whether the shortcut leaves it to the rebuild (`__other`), and for the others whether it opens a
 * version (`__opens`) and where that ends (`__end`) and whether it ends the current version
 * (`__closes_current`). The taken events' change rows are SELECTs over it (`inOrderChanges`), not
 * tables of their own: each table DuckDB writes costs about what computing its rows does.
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { END_AT, OP_COLUMN, SEQUENCE_COLUMN, START_AT, type ApplyChangesOptions } from './cdc-options.js';
import { equalValues, identList } from './sql.js';

export interface InOrderTables {
  /** Every event of the batch with `__other` (left to the rebuild) and, for the others, its key's current version. */
  readonly split: string;
  /** The batch's events the shortcut does not take (all columns of the normalized changes). */
  readonly rest: string;
}

/** The taken events' change rows, each a SELECT with the columns of the rebuild's table of the same rows. */
export interface InOrderChanges {
  /** keys, __START_AT */
  readonly deletes: string;
  /** data columns (keys included, in order), __START_AT, __END_AT */
  readonly inserts: string;
  /** keys, __sequence */
  readonly deleteEvents: string;
  /** keys, non-key data columns, __sequence */
  readonly absorbedEvents: string;
  /** count of the taken events */
  readonly taken: string;
}

export function takesInOrderEvents(options: ApplyChangesOptions, data: readonly string[], tracked: readonly string[]): boolean {
  return !options.ignoreNullUpdates && tracked.length === data.length;
}

/**
 * A SELECT of one row `m`: the highest sequence value `state` (an SCD2 table) and the `history`
 * tables (tombstones, absorbed upserts) hold. It reads them whole, so a caller applying batch after
 * batch keeps it instead (ApplyChanges: after a batch it is the higher of it and the batch's
 * highest, as every applied event lands in the state or the history).
 */
export function historyWatermark(state: string, history: readonly string[]): string {
  const highest = [
    `SELECT max(${quoteIdentifier(START_AT)}) AS m FROM ${quoteIdentifier(state)}`,
    `SELECT max(${quoteIdentifier(END_AT)}) FROM ${quoteIdentifier(state)}`,
    ...history.map((table) => `SELECT max(${quoteIdentifier(SEQUENCE_COLUMN)}) FROM ${quoteIdentifier(table)}`),
  ].join(' UNION ALL ');
  return `SELECT max(m) AS m FROM (${highest})`;
}

/**
 * Reads `input` into `split` (each event joined with its key's current version of `state`, and
 * `__other` for the events the shortcut does not take) and copies the others into `rest`.
 * `watermark`: a SELECT of the history's highest sequence value as `m` (historyWatermark).
 */
export async function splitInOrderEvents(
  session: DuckDbSession,
  args: { state: string; input: string; columns: readonly string[]; keys: readonly string[]; watermark: string; tables: InOrderTables },
): Promise<void> {
  const { keys, columns } = args;
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const start = quoteIdentifier(START_AT);
  const end = quoteIdentifier(END_AT);
  const state = quoteIdentifier(args.state);
  const data = columns.filter((c) => !keys.includes(c));
  const current = (c: string): string => quoteIdentifier(`__current_${c}`);
  const input = quoteIdentifier(args.input);
  const split = quoteIdentifier(args.tables.split);
  const byKey = `PARTITION BY ${identList(keys)} ORDER BY ${seq}`;
  const differs = (other: (c: string) => string): string => data.map((c) => ` OR ${quoteIdentifier(c)} IS DISTINCT FROM ${other(c)}`).join('');
  const differsFromCurrent = `NOT __has_current${differs(current)}`;
  const opensAfterCurrent = `${op} = 'upsert' AND (${differsFromCurrent})`;
  // An event breaks the run of versions before it when it is a delete or an opening upsert: the
  // version open before it (the current one for the key's first break) ends at its sequence value.
  const breaks = `(${op} = 'delete' OR __opens)`;
  // A key's only event needs no window over the key's events; the rest of the taken events do.
  // Two events of a key at one sequence value go to the rebuild, whose check rejects them.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${split} AS
     WITH watermark AS (${args.watermark}),
     per_key AS (SELECT ${identList(keys)}, count(*) AS __events, min(${seq}) <= (SELECT m FROM watermark) AS __late FROM ${input} GROUP BY ${identList(keys)}),
     joined AS (
       SELECT e.*, coalesce(k.__late, FALSE) AS __other, k.__events, s.${start} IS NOT NULL AS __has_current, s.${start} AS ${current(START_AT)},
              ${data.map((c) => `s.${quoteIdentifier(c)} AS ${current(c)}`).join(', ') || 'NULL AS __no_data'}
       FROM ${input} e JOIN per_key k ON ${equalValues(keys, 'k', 'e')}
       LEFT JOIN (SELECT * FROM ${state} WHERE ${end} IS NULL) s ON ${equalValues(keys, 's', 'e')}),
     several AS (
       SELECT *, ${op} = 'upsert' AND CASE WHEN lag(${op}) OVER w IS NULL THEN ${differsFromCurrent}
                                           ELSE lag(${op}) OVER w = 'delete'${differs((c) => `lag(${quoteIdentifier(c)}) OVER w`)} END AS __opens,
              coalesce(lag(${seq}) OVER w = ${seq} OR lead(${seq}) OVER w = ${seq}, FALSE) AS __duplicate
       FROM joined WHERE __events > 1 AND NOT __other WINDOW w AS (${byKey}))
     SELECT * EXCLUDE (__events), ${opensAfterCurrent} AS __opens, NULL AS __end, __has_current AND (${op} = 'delete' OR ${opensAfterCurrent}) AS __closes_current
     FROM joined WHERE __events = 1 OR __other
     UNION ALL BY NAME
     SELECT * EXCLUDE (__events, __other, __duplicate), __duplicate AS __other,
            CASE WHEN __opens THEN min(CASE WHEN ${breaks} THEN ${seq} END) OVER (w ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) END AS __end,
            __has_current AND ${breaks} AND coalesce(sum(${breaks}::INTEGER) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) = 0 AS __closes_current
     FROM several WINDOW w AS (${byKey})`,
  );
  await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(args.tables.rest)} AS SELECT ${identList([...columns, SEQUENCE_COLUMN, OP_COLUMN])} FROM ${split} WHERE __other`);
}

/** The taken events' change rows as SELECTs over `split`. */
export function inOrderChanges(args: { split: string; columns: readonly string[]; keys: readonly string[] }): InOrderChanges {
  const { keys, columns } = args;
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const data = columns.filter((c) => !keys.includes(c));
  const taken = `${quoteIdentifier(args.split)} WHERE NOT __other`;
  const currentStart = quoteIdentifier(`__current_${START_AT}`);
  const current = columns.map((c) => (keys.includes(c) ? quoteIdentifier(c) : `${quoteIdentifier(`__current_${c}`)} AS ${quoteIdentifier(c)}`)).join(', ');
  return {
    deletes: `SELECT ${identList(keys)}, ${currentStart} AS ${quoteIdentifier(START_AT)} FROM ${taken} AND __closes_current`,
    inserts: `SELECT ${current}, ${currentStart} AS ${quoteIdentifier(START_AT)}, ${seq} AS ${quoteIdentifier(END_AT)} FROM ${taken} AND __closes_current
              UNION ALL SELECT ${identList(columns)}, ${seq}, __end FROM ${taken} AND __opens`,
    deleteEvents: `SELECT ${identList(keys)}, ${seq} FROM ${taken} AND ${op} = 'delete'`,
    absorbedEvents: `SELECT ${identList([...keys, ...data])}, ${seq} FROM ${taken} AND ${op} = 'upsert' AND NOT __opens`,
    taken: `SELECT count(*) FROM ${taken}`,
  };
}

/**
 * Applies the taken events' change rows to the SCD2 table `state` in place: a close sets the end
 * of the key's current version (cheaper than deleting the row and adding it back), an open adds its version.
 */
export async function applyInOrderChanges(session: DuckDbSession, args: { state: string; split: string; columns: readonly string[]; keys: readonly string[] }): Promise<void> {
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const state = quoteIdentifier(args.state);
  const split = quoteIdentifier(args.split);
  const end = quoteIdentifier(END_AT);
  await session.run(
    `UPDATE ${state} s SET ${end} = x.${seq} FROM ${split} x
     WHERE NOT x.__other AND x.__closes_current AND ${equalValues(args.keys, 'x', 's')} AND s.${quoteIdentifier(START_AT)} = x.${quoteIdentifier(`__current_${START_AT}`)} AND s.${end} IS NULL`,
  );
  await session.run(
    `INSERT INTO ${state} (${identList([...args.columns, START_AT, END_AT])})
     SELECT ${identList(args.columns)}, ${seq}, __end FROM ${split} WHERE NOT __other AND __opens`,
  );
}
