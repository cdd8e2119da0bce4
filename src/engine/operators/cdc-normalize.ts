/**
 * Brings change events of any input format into one shape: the selected data columns, the
 * sequence value (`__sequence`) and the operation (`__op`: upsert | delete | truncate), and
 * rejects events that cannot be ordered (null key, null sequence, two events of one key at one
 * sequence value).
 */
import { InvalidInputError } from '../../errors.js';
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { OP_COLUMN, SEQUENCE_COLUMN, type ApplyChangesOptions } from './cdc-options.js';
import { ChangeEventError } from './operator-errors.js';
import { describeRelation, identList, sampleRow } from './sql.js';

export interface NormalizedChanges {
  readonly relation: string;
  /** Data columns in target order, keys included. */
  readonly columns: readonly string[];
  /** False when the caller asked to check for two events of one key at one sequence value itself (rejectDuplicateSequences). */
  readonly duplicatesChecked: boolean;
}

export async function normalizeChanges(
  session: DuckDbSession,
  input: string,
  options: ApplyChangesOptions,
  output: string,
  check: { duplicates: boolean } = { duplicates: true },
): Promise<NormalizedChanges> {
  const source = quoteIdentifier(input);
  const deleteWhen = options.applyAsDeletes === undefined ? 'FALSE' : `(${options.applyAsDeletes}) IS TRUE`;
  const truncateWhen = options.applyAsTruncates === undefined ? 'FALSE' : `(${options.applyAsTruncates}) IS TRUE`;
  const opOf = (deleted: string, truncated: string): string =>
    `CASE WHEN ${truncateWhen} OR ${truncated} THEN 'truncate' WHEN ${deleteWhen} OR ${deleted} THEN 'delete' ELSE 'upsert' END`;
  const sequence = `(${options.sequenceBy}) AS ${SEQUENCE_COLUMN}`;
  let shaped: string;
  let dropColumns: string[] = [];
  switch (options.format.kind) {
    case 'rows':
      shaped = `SELECT *, ${sequence}, ${opOf('FALSE', 'FALSE')} AS ${OP_COLUMN} FROM ${source}`;
      break;
    case 'row-kind': {
      const kind = quoteIdentifier(options.format.column);
      const unknown = await sampleRow(session, source, `${kind} IS NULL OR ${kind} NOT IN ('+I', '-U', '+U', '-D')`).catch(() => undefined);
      if (unknown !== undefined) {
        throw new InvalidInputError(`Row kind column "${options.format.column}" holds a value other than +I, -U, +U, -D: ${unknown}`, {
          context: { column: options.format.column, sampleRow: unknown },
        });
      }
      shaped = `SELECT *, ${sequence}, ${opOf(`${kind} = '-D'`, 'FALSE')} AS ${OP_COLUMN} FROM ${source} WHERE ${kind} <> '-U'`;
      dropColumns = [options.format.column];
      break;
    }
    case 'debezium': {
      // The row image is `before` for deletes and `after` otherwise; truncates carry none.
      const { before, after } = await debeziumImages(session, source);
      shaped = `SELECT unnest(CASE WHEN op = 'd' THEN ${before} ELSE ${after} END), ${SEQUENCE_COLUMN}, ${OP_COLUMN} FROM (
                  SELECT *, ${sequence}, ${opOf(`op = 'd'`, `op = 't'`)} AS ${OP_COLUMN} FROM ${source})`;
      break;
    }
  }
  const all = await describeOrThrow(session, `(${shaped})`);
  const dataColumns = all.map((c) => c.name).filter((n) => n !== SEQUENCE_COLUMN && n !== OP_COLUMN && !dropColumns.includes(n));
  const columns = selectColumns(dataColumns, options);
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(output)} AS SELECT ${identList(columns)}, ${SEQUENCE_COLUMN}, ${OP_COLUMN} FROM (${shaped})`,
  );
  await rejectUnorderable(session, output, options);
  if (check.duplicates) await rejectDuplicateSequences(session, output, options);
  return { relation: output, columns, duplicatesChecked: check.duplicates };
}

/**
 * The two row images as expressions of one struct type. Events that are all creates (or all
 * deletes) may come with the unused image untyped (a null column of another type, e.g. read from
 * JSON or an all-null Parquet column): it is cast to the other image's struct type.
 */
async function debeziumImages(session: DuckDbSession, source: string): Promise<{ before: string; after: string }> {
  const columns = await describeOrThrow(session, source);
  const typeOf = (name: string): string | undefined => columns.find((c) => c.name.toLowerCase() === name)?.type;
  const isStruct = (type: string | undefined): boolean => type?.startsWith('STRUCT') === true;
  const [beforeType, afterType] = [typeOf('before'), typeOf('after')];
  if (beforeType === undefined || afterType === undefined || isStruct(beforeType) === isStruct(afterType)) return { before: 'before', after: 'after' };
  const [untyped, structType] = isStruct(afterType) ? ['before', afterType] : ['after', beforeType];
  const value = await sampleRow(session, source, `${untyped} IS NOT NULL`);
  if (value !== undefined) {
    throw new InvalidInputError(`Debezium change event whose "${untyped}" is not a row image (a struct): ${value}`, {
      context: { column: untyped, sampleRow: value },
    });
  }
  const cast = `CAST(${untyped} AS ${structType})`;
  return untyped === 'before' ? { before: cast, after: 'after' } : { before: 'before', after: cast };
}

function selectColumns(available: readonly string[], options: ApplyChangesOptions): string[] {
  const missing = [...options.keys, ...(options.columnList ?? []), ...(options.exceptColumnList ?? [])].filter((c) => !available.includes(c));
  if (missing.length > 0) {
    throw new InvalidInputError(`Apply-changes: column "${missing[0]}" is not in the change rows (${available.join(', ')})`, {
      context: { column: missing[0] },
    });
  }
  if (options.columnList !== undefined) {
    return available.filter((c) => options.keys.includes(c) || options.columnList!.includes(c));
  }
  return available.filter((c) => !(options.exceptColumnList ?? []).includes(c));
}

async function describeOrThrow(session: DuckDbSession, relation: string): Promise<{ name: string; type: string }[]> {
  try {
    return await describeRelation(session, relation);
  } catch (error) {
    throw new InvalidInputError(`Apply-changes: the change rows cannot be read with these options: ${duckDbMessage(error)}`, { cause: error });
  }
}

async function rejectUnorderable(session: DuckDbSession, relation: string, options: ApplyChangesOptions): Promise<void> {
  const table = quoteIdentifier(relation);
  const rowEvent = `${OP_COLUMN} <> 'truncate'`;
  for (const key of options.keys) {
    const sample = await sampleRow(session, table, `${rowEvent} AND ${quoteIdentifier(key)} IS NULL`);
    if (sample !== undefined) throw new ChangeEventError('CDC_NULL_KEY', key, sample, `Change event with a null key column "${key}"`);
  }
  const nullSequence = await sampleRow(session, table, `${SEQUENCE_COLUMN} IS NULL`);
  if (nullSequence !== undefined) {
    throw new ChangeEventError('CDC_NULL_SEQUENCE', options.sequenceBy, nullSequence, `Change event with a null sequence (${options.sequenceBy})`);
  }
}

/** Refuses two row events of one key at one sequence value in `relation` (normalized changes): the order between them is undefined. */
export async function rejectDuplicateSequences(session: DuckDbSession, relation: string, options: ApplyChangesOptions): Promise<void> {
  const table = quoteIdentifier(relation);
  const rowEvent = `${OP_COLUMN} <> 'truncate'`;
  const keys = identList(options.keys);
  const duplicate = await sampleRow(
    session,
    table,
    `(${keys}, ${SEQUENCE_COLUMN}) IN (SELECT (${keys}, ${SEQUENCE_COLUMN}) FROM ${table} WHERE ${rowEvent} GROUP BY ALL HAVING count(*) > 1 LIMIT 1)`,
  );
  if (duplicate !== undefined) {
    throw new ChangeEventError(
      'CDC_DUPLICATE_SEQUENCE',
      options.sequenceBy,
      duplicate,
      `Two change events of one key have the same sequence value (${options.sequenceBy}); the order between them is undefined`,
    );
  }
}
