/**
 * SCD type 2: every version of a key is a row with `__START_AT` (the sequence value of the event
 * that opened it) and `__END_AT` (the sequence value of the event that ended it: the next version
 * or a delete; NULL for the current row). The table alone is the state: its rows give back the
 * events that built it (each version's start is an upsert; an end that no version of the key
 * starts at is a delete), so out-of-order events are merged into that timeline and the affected
 * keys' versions are rebuilt. A late event inside an existing interval splits it.
 *
 * The table cannot show every event it was built from: a delete that followed another delete (or
 * came before the key's first version), an upsert that repeated the current values (or, with
 * track-history columns, changed only untracked ones), and an upsert whose own values a later
 * in-place update or a null filled by ignoreNullUpdates replaced. A late event between such an
 * event and its neighbours would be ordered against the wrong one. Callers that keep them as
 * history (tombstones: keys + __sequence of deletes; absorbed: keys, data columns and __sequence
 * of those upserts) pass it and get exact ordering: any split of the events into batches gives
 * the table all events in one batch give. Without, deletes are read from the table's gaps and
 * the other events are lost.
 *
 * With track-history columns, an upsert that changes none of them updates the version it falls
 * in instead of opening a new one.
 *
 * An event at a sequence value the key's timeline already has is a redelivery and is ignored.
 */
import { InvalidInputError } from '../../errors.js';
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { END_AT, OP_COLUMN, SEQUENCE_COLUMN, START_AT, type ApplyChangesOptions } from './cdc-options.js';
import type { ChangeSet, ChangeStats } from './change-set.js';
import type { NormalizedChanges } from './cdc-normalize.js';
import { countRows, equalValues, identList } from './sql.js';

export interface Scd2Result {
  readonly changeSet: ChangeSet;
  /** The batch's delete events that were applied (keys, __sequence), for the caller's tombstones. */
  readonly deleteEvents: string;
  /**
   * The absorbed upserts (keys, data columns, __sequence) of every key from its `rebuiltFrom`
   * sequence on: they replace the caller's absorbed upserts of that key at or after it.
   */
  readonly absorbedEvents: string;
  /** Per affected key (keys, __from): where its history was rebuilt from. */
  readonly rebuiltFrom: string;
  readonly stats: ChangeStats;
}

/** The events an SCD2 table cannot show, kept by the caller (see the module comment). */
export interface Scd2History {
  /** keys, __sequence of every applied delete event. */
  readonly tombstones: string;
  /** keys, data columns, __sequence of every applied upsert whose values the versions do not show. */
  readonly absorbed: string;
}

export function scd2StateColumns(columns: readonly string[]): string[] {
  return [...columns, START_AT, END_AT];
}

export function trackedColumns(columns: readonly string[], options: ApplyChangesOptions): string[] {
  const data = columns.filter((c) => !options.keys.includes(c));
  const named = options.trackHistoryColumnList ?? options.trackHistoryExceptColumnList ?? [];
  const unknown = named.find((c) => !data.includes(c));
  if (unknown !== undefined) {
    throw new InvalidInputError(`Track-history column "${unknown}" is not a non-key target column (${data.join(', ')})`, { context: { column: unknown } });
  }
  if (options.trackHistoryColumnList !== undefined) return data.filter((c) => options.trackHistoryColumnList!.includes(c));
  return data.filter((c) => !(options.trackHistoryExceptColumnList ?? []).includes(c));
}

/**
 * The change set that brings the SCD2 `state` (keys, data columns, __START_AT, __END_AT) up to
 * date with `changes`; deletes are keyed by the key columns and __START_AT.
 */
export async function computeScd2(
  session: DuckDbSession,
  state: string,
  changes: NormalizedChanges,
  options: ApplyChangesOptions,
  prefix: string,
  history?: Scd2History,
): Promise<Scd2Result> {
  const t = (suffix: string): string => quoteIdentifier(`${prefix}__${suffix}`);
  const keys = options.keys;
  const cols = changes.columns;
  const data = cols.filter((c) => !keys.includes(c));
  const tracked = trackedColumns(cols, options);
  const seq = quoteIdentifier(SEQUENCE_COLUMN);
  const op = quoteIdentifier(OP_COLUMN);
  const start = quoteIdentifier(START_AT);
  const end = quoteIdentifier(END_AT);
  const input = quoteIdentifier(changes.relation);
  const keyList = identList(keys);
  const byKey = `PARTITION BY ${keyList}`;

  const truncate = await countRows(session, input, `${op} = 'truncate'`);
  if (truncate > 0) throw new InvalidInputError('Truncate events are only supported with SCD type 1', { context: { events: truncate } });

  // Versions that ended before a key's earliest event in this batch cannot change, so only the
  // rest of each history is rebuilt: from the start of the first version still open at that
  // event (__from). With ignoreNullUpdates the version just before it is replayed too, unchanged,
  // as the event whose values the nulls of the first take.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt_from')} AS
     WITH earliest AS (SELECT ${keyList}, min(${seq}) AS __earliest FROM ${input} GROUP BY ${keyList}),
          still_open AS (SELECT ${identList(keys, 's.')}, min(s.${start}) AS __start FROM ${quoteIdentifier(state)} s
                         JOIN earliest f ON ${equalValues(keys, 's', 'f')} WHERE s.${end} IS NULL OR s.${end} >= f.__earliest GROUP BY ${identList(keys, 's.')})
     SELECT ${identList(keys, 'f.')}, f.__earliest, least(f.__earliest, coalesce(o.__start, f.__earliest)) AS __from
     FROM earliest f LEFT JOIN still_open o ON ${equalValues(keys, 'o', 'f')}`,
  );
  const from = t('rebuilt_from');
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('old')} AS SELECT s.* FROM ${quoteIdentifier(state)} s
     JOIN ${from} f ON ${equalValues(keys, 'f', 's')}
     WHERE s.${end} IS NULL OR s.${end} >= f.${options.ignoreNullUpdates ? '__from' : '__earliest'}`,
  );
  const nulls = data.map((c) => `NULL AS ${quoteIdentifier(c)}, `).join('');
  const deletes =
    history === undefined
      ? `SELECT ${keyList}, ${nulls}${end}, 'delete' FROM ${t('old')} o WHERE ${end} IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ${t('old')} n WHERE ${equalValues(keys, 'n', 'o')} AND n.${start} = o.${end})`
      : `SELECT ${identList(keys, 'd.')}, ${nulls}d.${seq}, 'delete' FROM ${quoteIdentifier(history.tombstones)} d
           JOIN ${from} f ON ${equalValues(keys, 'f', 'd')} WHERE d.${seq} >= f.__from`;
  await session.run(
    history === undefined
      ? `CREATE OR REPLACE TEMP TABLE ${t('absorbed_old')} AS SELECT ${identList(cols)}, ${seq} FROM ${input} LIMIT 0`
      : `CREATE OR REPLACE TEMP TABLE ${t('absorbed_old')} AS SELECT ${identList(cols, 'a.')}, a.${seq} FROM ${quoteIdentifier(history.absorbed)} a
         JOIN ${from} f ON ${equalValues(keys, 'f', 'a')} WHERE a.${seq} >= f.__from`,
  );
  // The events the affected keys' versions were built from: a version's start is an upsert with
  // the version's values unless the absorbed upserts hold its own.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('known')} AS
     SELECT ${identList(cols)}, ${start} AS ${seq}, 'upsert' AS ${op} FROM ${t('old')} o
     WHERE NOT EXISTS (SELECT 1 FROM ${t('absorbed_old')} a WHERE ${equalValues(keys, 'a', 'o')} AND a.${seq} = o.${start})
     UNION ALL SELECT ${identList(cols)}, ${seq}, 'upsert' FROM ${t('absorbed_old')}
     UNION ALL ${deletes}`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('fresh')} AS SELECT ${identList(cols)}, ${seq}, ${op} FROM ${input} c
     WHERE NOT EXISTS (SELECT 1 FROM ${t('known')} k WHERE ${equalValues(keys, 'k', 'c')} AND k.${seq} = c.${seq})`,
  );
  const timeline = `SELECT * FROM ${t('known')} UNION ALL SELECT * FROM ${t('fresh')}`;
  const filled = options.ignoreNullUpdates
    ? `SELECT ${keyList}, ${data
        .map((c) => `last_value(${quoteIdentifier(c)} IGNORE NULLS) OVER (${byKey}, __segment ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS ${quoteIdentifier(c)}`)
        .join(', ')}${data.length > 0 ? ',' : ''} ${seq}, ${op}
       FROM (SELECT *, sum(CASE WHEN ${op} = 'delete' THEN 1 ELSE 0 END) OVER (${byKey} ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS __segment FROM (${timeline}))`
    : timeline;
  const changed = tracked.map((c) => `${quoteIdentifier(c)} IS DISTINCT FROM lag(${quoteIdentifier(c)}) OVER w`);
  // An upsert opens a version after nothing, after a delete, or when a tracked column changes.
  const opens = `${op} = 'upsert' AND (lag(${op}) OVER w IS NULL OR lag(${op}) OVER w = 'delete'${changed.map((c) => ` OR ${c}`).join('')})`;
  const flagged = `SELECT *, CASE WHEN ${opens} THEN 1 ELSE 0 END AS __opens, lead(${seq}) OVER w AS __next
                   FROM (${filled}) WINDOW w AS (${byKey} ORDER BY ${seq})`;
  const numbered = `SELECT *, sum(__opens) OVER (${byKey} ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS __version FROM (${flagged})`;
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt')} AS
     SELECT ${keyList}, ${data.map((c) => `arg_max_null(${quoteIdentifier(c)}, ${seq}) AS ${quoteIdentifier(c)}`).join(', ')}${data.length > 0 ? ',' : ''}
            min(${seq}) AS ${start}, arg_max_null(__next, ${seq}) AS ${end}
     FROM (${numbered}) WHERE ${op} = 'upsert' GROUP BY ${keyList}, __version`,
  );
  // Versions are identified by key + __START_AT; one that differs in any other column is replaced.
  const differs = [...data, END_AT].map((c) => `r.${quoteIdentifier(c)} IS DISTINCT FROM o.${quoteIdentifier(c)}`).join(' OR ');
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('diff')} AS
     SELECT ${identList(scd2StateColumns(cols), 'r.')}, ${keys.map((k, i) => `o.${quoteIdentifier(k)} AS __old_key_${i}`).join(', ')},
            o.${start} AS __old_start, r.${start} IS NOT NULL AS __in_new, o.${start} IS NOT NULL AS __in_old,
            r.${start} IS NOT NULL AND o.${start} IS NOT NULL AND (${differs}) AS __changed
     FROM ${t('rebuilt')} r FULL OUTER JOIN ${t('old')} o ON ${equalValues(keys, 'r', 'o')} AND r.${start} = o.${start}`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('inserts')} AS SELECT ${identList(scd2StateColumns(cols))} FROM ${t('diff')} WHERE __in_new AND (NOT __in_old OR __changed)`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('deletes')} AS SELECT ${keys.map((k, i) => `__old_key_${i} AS ${quoteIdentifier(k)}`).join(', ')}, __old_start AS ${start}
     FROM ${t('diff')} WHERE __in_old AND (NOT __in_new OR __changed)`,
  );
  await session.run(`CREATE OR REPLACE TEMP TABLE ${t('delete_events')} AS SELECT ${keyList}, ${seq} FROM ${t('fresh')} WHERE ${op} = 'delete'`);
  // An upsert the versions do not show: it opened none, or the version it opened holds other values.
  const unlike = data.map((c) => ` OR v.${quoteIdentifier(c)} IS DISTINCT FROM e.${quoteIdentifier(c)}`).join('');
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('absorbed_events')} AS SELECT ${identList(cols, 'e.')}, e.${seq} FROM (${timeline}) e
     JOIN ${from} f ON ${equalValues(keys, 'f', 'e')}
     LEFT JOIN ${t('rebuilt')} v ON ${equalValues(keys, 'v', 'e')} AND v.${start} = e.${seq}
     WHERE e.${op} = 'upsert' AND e.${seq} >= f.__from AND (v.${start} IS NULL${unlike})`,
  );
  const events = await countRows(session, input);
  return {
    changeSet: { deletes: `${prefix}__deletes`, inserts: `${prefix}__inserts`, deleteKeyColumns: [...keys, START_AT] },
    deleteEvents: `${prefix}__delete_events`,
    absorbedEvents: `${prefix}__absorbed_events`,
    rebuiltFrom: `${prefix}__rebuilt_from`,
    stats: {
      events,
      ignoredEvents: events - (await countRows(session, t('fresh'))),
      deletedRows: await countRows(session, t('deletes')),
      insertedRows: await countRows(session, t('inserts')),
    },
  };
}
