/**
 * The SCD2 shortcut for keys with one event in the batch, later than every sequence value the
 * history holds (of any key: the history's watermark). Such an event can only act on the key's
 * current version, so no timeline is rebuilt: an upsert with other values closes the current
 * version at its sequence value and opens its own, one with the same values is absorbed, a delete
 * closes the current version. The change rows are the ones rebuilding the key's history would
 * give (scd2.ts), without its window over every affected key; the other events are left to it.
 *
 * Only without ignoreNullUpdates and with every data column tracked: there an event's values are
 * its own, and equal tracked values mean equal versions.
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { END_AT, OP_COLUMN, SEQUENCE_COLUMN, START_AT, type ApplyChangesOptions } from './cdc-options.js';
import { equalValues, identList } from './sql.js';

export interface InOrderTables {
  /** The keys of the events the shortcut does not take. */
  readonly others: string;
  /** The batch's events the shortcut does not take (all columns of the normalized changes). */
  readonly rest: string;
  /** The taken events joined with their key's current version. */
  readonly taken: string;
}

export function takesInOrderEvents(options: ApplyChangesOptions, data: readonly string[], tracked: readonly string[]): boolean {
  return !options.ignoreNullUpdates && tracked.length === data.length;
}

/**
 * Splits `input` into the events the shortcut takes (`taken`, joined with their key's current
 * version of `state`) and the `rest`. `history` holds the tombstone and absorbed tables, if any.
 */
export async function splitInOrderEvents(
  session: DuckDbSession,
  args: { state: string; input: string; columns: readonly string[]; keys: readonly string[]; history: readonly string[]; tables: InOrderTables },
): Promise<void> {
  const { keys, columns } = args;
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const start = quoteIdentifier(START_AT);
  const end = quoteIdentifier(END_AT);
  const state = quoteIdentifier(args.state);
  const data = columns.filter((c) => !keys.includes(c));
  const highest = [
    `SELECT max(${start}) AS m FROM ${state}`,
    `SELECT max(${end}) FROM ${state}`,
    ...args.history.map((table) => `SELECT max(${seq}) FROM ${quoteIdentifier(table)}`),
  ].join(' UNION ALL ');
  const current = (c: string): string => quoteIdentifier(`__current_${c}`);
  const input = quoteIdentifier(args.input);
  const others = quoteIdentifier(args.tables.others);
  // The keys left to the rebuild are few, so both sides of the split probe a small hash table.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${others} AS
     WITH watermark AS (SELECT max(m) AS m FROM (${highest}))
     SELECT ${identList(keys)} FROM ${input} GROUP BY ${identList(keys)}
     HAVING count(*) > 1 OR min(${seq}) <= (SELECT m FROM watermark)`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(args.tables.taken)} AS
     SELECT e.*, s.${start} IS NOT NULL AS __has_current, s.${start} AS ${current(START_AT)},
            ${data.map((c) => `s.${quoteIdentifier(c)} AS ${current(c)}`).join(', ') || 'NULL AS __no_data'},
            s.${start} IS NOT NULL AND (e.${op} = 'delete'${data.map((c) => ` OR e.${quoteIdentifier(c)} IS DISTINCT FROM s.${quoteIdentifier(c)}`).join('')}) AS __closes_current
     FROM (SELECT * FROM ${input} c WHERE NOT EXISTS (SELECT 1 FROM ${others} k WHERE ${equalValues(keys, 'k', 'c')})) e
     LEFT JOIN (SELECT * FROM ${state} WHERE ${end} IS NULL) s ON ${equalValues(keys, 's', 'e')}`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(args.tables.rest)} AS SELECT * FROM ${input} c
     WHERE EXISTS (SELECT 1 FROM ${others} k WHERE ${equalValues(keys, 'k', 'c')})`,
  );
}

/** The taken events' change rows, added to the tables the history rebuild created. */
export async function addInOrderChanges(
  session: DuckDbSession,
  args: { taken: string; columns: readonly string[]; keys: readonly string[]; deletes: string; inserts: string; deleteEvents: string; absorbedEvents: string },
): Promise<void> {
  const { keys, columns } = args;
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const taken = quoteIdentifier(args.taken);
  const currentStart = quoteIdentifier(`__current_${START_AT}`);
  const current = columns.map((c) => (keys.includes(c) ? quoteIdentifier(c) : quoteIdentifier(`__current_${c}`))).join(', ');
  const into = (table: string, names: readonly string[]): string => `INSERT INTO ${quoteIdentifier(table)} (${identList(names)})`;
  const versionColumns = [...columns, START_AT, END_AT];
  await session.run(`${into(args.deletes, [...keys, START_AT])} SELECT ${identList(keys)}, ${currentStart} FROM ${taken} WHERE __closes_current`);
  await session.run(
    `${into(args.inserts, versionColumns)}
     SELECT ${current}, ${currentStart}, ${seq} FROM ${taken} WHERE __closes_current
     UNION ALL SELECT ${identList(columns)}, ${seq}, NULL FROM ${taken} WHERE ${op} = 'upsert' AND (__closes_current OR NOT __has_current)`,
  );
  await session.run(`${into(args.deleteEvents, [...keys, SEQUENCE_COLUMN])} SELECT ${identList(keys)}, ${seq} FROM ${taken} WHERE ${op} = 'delete'`);
  await session.run(
    `${into(args.absorbedEvents, [...columns, SEQUENCE_COLUMN])} SELECT ${identList(columns)}, ${seq} FROM ${taken}
     WHERE ${op} = 'upsert' AND __has_current AND NOT __closes_current`,
  );
}
