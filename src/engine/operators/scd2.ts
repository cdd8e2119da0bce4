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
import { applyChangeSet, type ChangeSet, type ChangeStats } from './change-set.js';
import { rejectDuplicateSequences, type NormalizedChanges } from './cdc-normalize.js';
import { applyInOrderChanges, historyWatermark, inOrderChanges, splitInOrderEvents, takesInOrderEvents } from './scd2-in-order.js';
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
  /** Applies the change set to the SCD2 table `target` (the state it was computed from) in place. */
  applyTo(target: string): Promise<void>;
}

/** The events an SCD2 table cannot show, kept by the caller (see the module comment). */
export interface Scd2History {
  /** keys, __sequence of every applied delete event. */
  readonly tombstones: string;
  /** keys, data columns, __sequence of every applied upsert whose values the versions do not show. */
  readonly absorbed: string;
  /**
   * A one-row table (column m) holding the highest sequence value the state and the history
   * hold, or a higher one, kept by the caller; read from the tables when absent.
   */
  readonly watermark?: string;
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
  const keyList = identList(keys);
  const byKey = `PARTITION BY ${keyList}`;

  const truncate = await countRows(session, quoteIdentifier(changes.relation), `${op} = 'truncate'`);
  if (truncate > 0) throw new InvalidInputError('Truncate events are only supported with SCD type 1', { context: { events: truncate } });

  // Keys whose events all come later than the whole history skip the rebuild (scd2-in-order.ts).
  const shortcut = takesInOrderEvents(options, data, tracked) ? { split: `${prefix}__in_order`, rest: `${prefix}__rest` } : undefined;
  if (shortcut !== undefined) {
    const watermark =
      history?.watermark !== undefined
        ? `SELECT m FROM ${quoteIdentifier(history.watermark)}`
        : historyWatermark(state, history === undefined ? [] : [history.tombstones, history.absorbed]);
    await splitInOrderEvents(session, { state, input: changes.relation, columns: cols, keys, watermark, tables: shortcut });
  }
  // Two events of a key at one sequence value are both in the rest: the split leaves them to it.
  if (!changes.duplicatesChecked) await rejectDuplicateSequences(session, shortcut?.rest ?? changes.relation, options);
  const input = quoteIdentifier(shortcut?.rest ?? changes.relation);

  // Versions that ended before a key's earliest event in this batch cannot change, so only the
  // rest of each history is rebuilt: the versions still open at that event (old), from the start
  // of the first of them (__from). With ignoreNullUpdates the version just before is replayed too
  // (__replay), unchanged, as the event whose values the nulls of the first take.
  await session.run(`CREATE OR REPLACE TEMP TABLE ${t('earliest')} AS SELECT ${keyList}, min(${seq}) AS __earliest FROM ${input} GROUP BY ${keyList}`);
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('old')} AS SELECT s.*, FALSE AS __replay FROM ${quoteIdentifier(state)} s
     JOIN ${t('earliest')} f ON ${equalValues(keys, 'f', 's')} WHERE s.${end} IS NULL OR s.${end} >= f.__earliest`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt_from')} AS
     SELECT ${identList(keys, 'f.')}, f.__earliest, least(f.__earliest, coalesce(o.__start, f.__earliest)) AS __from
     FROM ${t('earliest')} f LEFT JOIN (SELECT ${keyList}, min(${start}) AS __start FROM ${t('old')} GROUP BY ${keyList}) o ON ${equalValues(keys, 'o', 'f')}`,
  );
  const from = t('rebuilt_from');
  if (options.ignoreNullUpdates) {
    await session.run(
      `INSERT INTO ${t('old')} SELECT s.*, TRUE FROM ${quoteIdentifier(state)} s
       JOIN ${from} f ON ${equalValues(keys, 'f', 's')} WHERE s.${end} >= f.__from AND s.${end} < f.__earliest`,
    );
  }
  const nulls = data.map((c) => `NULL AS ${quoteIdentifier(c)}, `).join('');
  const deletes =
    history === undefined
      ? `SELECT ${keyList}, ${nulls}${end}, 'delete', FALSE FROM ${t('old')} o WHERE ${end} IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ${t('old')} n WHERE ${equalValues(keys, 'n', 'o')} AND n.${start} = o.${end})`
      : `SELECT ${identList(keys, 'd.')}, ${nulls}d.${seq}, 'delete', FALSE FROM ${quoteIdentifier(history.tombstones)} d
           JOIN ${from} f ON ${equalValues(keys, 'f', 'd')} WHERE d.${seq} >= f.__from`;
  const absorbedOld =
    history === undefined
      ? `SELECT ${identList(cols)}, ${seq} FROM ${input} LIMIT 0`
      : `SELECT ${identList(cols, 'a.')}, a.${seq} FROM ${quoteIdentifier(history.absorbed)} a JOIN ${from} f ON ${equalValues(keys, 'f', 'a')} WHERE a.${seq} >= f.__from`;
  // The events the affected keys' versions were built from (a version's start is an upsert with
  // the version's values unless the absorbed upserts hold its own), then the batch's events the
  // timeline does not already hold.
  const known = `absorbed_old AS (${absorbedOld}),
    known AS (
      SELECT ${identList(cols)}, ${start} AS ${seq}, 'upsert' AS ${op}, __replay FROM ${t('old')} o
      WHERE NOT EXISTS (SELECT 1 FROM absorbed_old a WHERE ${equalValues(keys, 'a', 'o')} AND a.${seq} = o.${start})
      UNION ALL SELECT ${identList(cols)}, ${seq}, 'upsert', FALSE FROM absorbed_old
      UNION ALL ${deletes}),
    timeline AS (
      SELECT *, FALSE AS __fresh FROM known
      UNION ALL SELECT ${identList(cols)}, ${seq}, ${op}, FALSE, TRUE FROM ${input} c
      WHERE NOT EXISTS (SELECT 1 FROM known k WHERE ${equalValues(keys, 'k', 'c')} AND k.${seq} = c.${seq}))`;
  const raw = (c: string): string => quoteIdentifier(`__raw_${c}`);
  const fills = options.ignoreNullUpdates && data.length > 0;
  const filled = fills
    ? `SELECT * EXCLUDE (${identList(data)}), ${data
        .map((c) => `last_value(${raw(c)} IGNORE NULLS) OVER (${byKey}, __segment ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS ${quoteIdentifier(c)}`)
        .join(', ')}
       FROM (SELECT *, ${data.map((c) => `${quoteIdentifier(c)} AS ${raw(c)}, `).join('')}sum(CASE WHEN ${op} = 'delete' THEN 1 ELSE 0 END) OVER (${byKey} ORDER BY ${seq} ROWS UNBOUNDED PRECEDING) AS __segment FROM timeline)`
    : `SELECT * FROM timeline`;
  const differs = (other: 'lag' | 'lead'): string => tracked.map((c) => ` OR ${quoteIdentifier(c)} IS DISTINCT FROM ${other}(${quoteIdentifier(c)}) OVER w`).join('');
  // An upsert opens a version after nothing, after a delete, or when a tracked column changes; it
  // closes its version when nothing, a delete or an upsert that opens follows.
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('timeline')} AS
     WITH ${known}
     SELECT *, ${op} = 'upsert' AND (lag(${op}) OVER w IS NULL OR lag(${op}) OVER w = 'delete'${differs('lag')}) AS __opens,
            ${op} = 'upsert' AND (lead(${op}) OVER w IS NULL OR lead(${op}) OVER w = 'delete'${differs('lead')}) AS __closes,
            lead(${seq}) OVER w AS __next
     FROM (${filled}) WINDOW w AS (${byKey} ORDER BY ${seq})`,
  );
  // A version holds the values of its last upsert (the one that closes it) and ends at the event
  // after it; it starts at the latest upsert that opens at or before that one. `__first_*`: the
  // opening upsert's own values, which the version may not show.
  const own = (c: string): string => (fills ? raw(c) : quoteIdentifier(c));
  const version = (opener: string, closer: string): string =>
    `${identList(keys, `${closer}.`)}, ${data.map((c) => `${closer}.${quoteIdentifier(c)}, `).join('')}${opener}.${seq} AS ${start}, ${closer}.__next AS ${end},
     ${opener}.__replay${data.map((c) => `, ${opener}.${own(c)} AS ${quoteIdentifier(`__first_${c}`)}`).join('')}`;
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt')} AS
     SELECT ${version('v', 'v')} FROM ${t('timeline')} v WHERE __opens AND __closes
     UNION ALL SELECT ${version('o', 'c')} FROM (SELECT * FROM ${t('timeline')} WHERE __closes AND NOT __opens) c
     ASOF JOIN (SELECT * FROM ${t('timeline')} WHERE __opens AND NOT __closes) o ON ${equalValues(keys, 'o', 'c')} AND c.${seq} >= o.${seq}`,
  );
  // Versions are identified by key + __START_AT; one that differs in any other column is replaced.
  const same = (left: string, right: string): string =>
    `${equalValues([...keys, START_AT], left, right)}${[...data, END_AT].map((c) => ` AND ${left}.${quoteIdentifier(c)} IS NOT DISTINCT FROM ${right}.${quoteIdentifier(c)}`).join('')}`;
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt_inserts')} AS SELECT ${identList(scd2StateColumns(cols))} FROM ${t('rebuilt')} r
     WHERE NOT EXISTS (SELECT 1 FROM ${t('old')} o WHERE ${same('o', 'r')})`,
  );
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt_deletes')} AS SELECT ${keyList}, ${start} FROM ${t('old')} o
     WHERE NOT EXISTS (SELECT 1 FROM ${t('rebuilt')} r WHERE ${same('r', 'o')})`,
  );
  await session.run(`CREATE OR REPLACE TEMP TABLE ${t('rebuilt_delete_events')} AS SELECT ${keyList}, ${seq} FROM ${t('timeline')} WHERE __fresh AND ${op} = 'delete'`);
  // An upsert the versions do not show: it opened none, or the version it opened holds other values.
  const unlike = data.map((c) => `${quoteIdentifier(`__first_${c}`)} IS DISTINCT FROM ${quoteIdentifier(c)}`).join(' OR ');
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${t('rebuilt_absorbed')} AS
     SELECT ${identList(keys)}, ${data.map((c) => `${own(c)} AS ${quoteIdentifier(c)}, `).join('')}${seq} FROM ${t('timeline')}
     WHERE ${op} = 'upsert' AND NOT __opens AND NOT __replay
     UNION ALL SELECT ${identList(keys)}, ${data.map((c) => `${quoteIdentifier(`__first_${c}`)}, `).join('')}${start} FROM ${t('rebuilt')}
     WHERE NOT __replay AND (${unlike || 'FALSE'})`,
  );
  // The change rows: the rebuild's tables, with the shortcut's rows over its split table.
  const outputs = { deletes: `${prefix}__deletes`, inserts: `${prefix}__inserts`, deleteEvents: `${prefix}__delete_events`, absorbedEvents: `${prefix}__absorbed_events` };
  const rebuiltOutputs = { deletes: t('rebuilt_deletes'), inserts: t('rebuilt_inserts'), deleteEvents: t('rebuilt_delete_events'), absorbedEvents: t('rebuilt_absorbed') };
  const taken = shortcut === undefined ? undefined : inOrderChanges({ split: shortcut.split, columns: cols, keys });
  await session.run(
    (Object.keys(outputs) as (keyof typeof outputs)[])
      .map((k) => `CREATE OR REPLACE TEMP VIEW ${quoteIdentifier(outputs[k])} AS SELECT * FROM ${rebuiltOutputs[k]}${taken === undefined ? '' : ` UNION ALL ${taken[k]}`};`)
      .join(' '),
  );
  const [counts] = await session.queryJson(
    `SELECT (SELECT count(*) FROM ${quoteIdentifier(changes.relation)})::INTEGER AS events, (${taken?.taken ?? 'SELECT 0'})::INTEGER AS taken,
            (SELECT count(*) FROM ${t('timeline')} WHERE __fresh)::INTEGER AS fresh,
            (SELECT count(*) FROM ${quoteIdentifier(outputs.deletes)})::INTEGER AS deleted, (SELECT count(*) FROM ${quoteIdentifier(outputs.inserts)})::INTEGER AS inserted`,
  );
  const count = (name: string): number => Number(counts?.[name] ?? 0);
  return {
    changeSet: { deletes: outputs.deletes, inserts: outputs.inserts, deleteKeyColumns: [...keys, START_AT] },
    deleteEvents: outputs.deleteEvents,
    absorbedEvents: outputs.absorbedEvents,
    rebuiltFrom: `${prefix}__rebuilt_from`,
    stats: { events: count('events'), ignoredEvents: count('events') - count('taken') - count('fresh'), deletedRows: count('deleted'), insertedRows: count('inserted') },
    applyTo: async (target) => {
      const rebuilt = { deletes: `${prefix}__rebuilt_deletes`, inserts: `${prefix}__rebuilt_inserts`, deleteKeyColumns: [...keys, START_AT] };
      await applyChangeSet(session, target, rebuilt, scd2StateColumns(cols));
      if (shortcut !== undefined) await applyInOrderChanges(session, { state: target, split: shortcut.split, columns: cols, keys });
    },
  };
}
