/**
 * The key rules of an upsert, the same on every run (the one that creates the table too): the
 * key columns exist (in the table as it was, for an existing table: a key column that another
 * writer renamed or dropped cannot come back as a new, empty column), are primitive and not
 * floating point; the rows to add have no null key and no key twice; delete keys are not null.
 * `subject` names the operation and the table in every message.
 */
import { InvalidInputError, SchemaMismatchError } from '../errors.js';
import { icebergToDuckDbType, quoteIdentifier } from '../iceberg/duckdb-types.js';
import { matchByName } from '../iceberg/schema-evolution.js';
import type { NestedField, PrimitiveType } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';
import type { DuckDbSession } from '../duckdb/session.js';

export type KeyField = NestedField & { type: PrimitiveType };

const FLOAT_KINDS: ReadonlySet<string> = new Set(['float', 'double']);

/**
 * The key columns among `fields` (the schema the rows are written with). `existing`: the fields
 * of the table before this commit's schema change; every key column must be one of them.
 */
export function keyFields(subject: string, fields: readonly NestedField[], names: readonly string[], existing?: readonly NestedField[]): KeyField[] {
  if (names.length === 0) throw new InvalidInputError(`${subject}: an upsert needs at least one key column`);
  return names.map((name) => {
    const field = fields[matchByName(fields, name)];
    if (field === undefined) {
      throw new InvalidInputError(`${subject}: key column "${name}" is not a column of the rows (${fields.map((f) => f.name).join(', ')})`, {
        context: { column: name },
      });
    }
    if (existing !== undefined && !existing.some((f) => f.id === field.id)) {
      throw new SchemaMismatchError(
        `${subject}: key column "${name}" is not a column of the table (${existing.map((f) => f.name).join(', ')}); another writer may have renamed or dropped it, ` +
          'and a key column cannot be added back empty: rename it back or write a new table',
        { context: { column: name } },
      );
    }
    if (!isPrimitive(field.type) || FLOAT_KINDS.has(field.type.kind)) {
      throw new InvalidInputError(`${subject}: key column "${name}" must be a primitive, non-floating-point column`, { context: { column: name } });
    }
    return field as KeyField;
  });
}

/** The rows to add (a table) have no null key and no key twice. */
export async function checkSourceKeys(session: DuckDbSession, source: string, keys: readonly KeyField[], subject: string): Promise<void> {
  const list = keys.map((k) => quoteIdentifier(k.name)).join(', ');
  const nulls = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM ${source} WHERE ${anyNull(keys)}`);
  if (nulls[0]?.['n'] !== '0') {
    throw new InvalidInputError(`${subject}: the rows to add hold ${String(nulls[0]?.['n'])} rows with a null key (${list}); keys must not be null`, {
      context: { keys: list },
    });
  }
  const shown = keys.map((k) => `${quoteIdentifier(k.name)}::VARCHAR AS ${quoteIdentifier(k.name)}`).join(', ');
  const duplicates = await session.queryJson(`SELECT ${shown}, count(*)::VARCHAR AS __n FROM ${source} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1`);
  const first = duplicates[0];
  if (first !== undefined) {
    const key = keys.map((k) => `${k.name}=${String(first[k.name])}`).join(', ');
    throw new InvalidInputError(`${subject}: the rows to add hold ${String(first['__n'])} rows with key ${key}; each key may appear once`, { context: { key } });
  }
}

/** Stages the delete keys of `query` into `table`, distinct and typed as the key columns; a null key is an error. */
export async function stageDeleteKeys(session: DuckDbSession, keys: readonly KeyField[], query: string, table: string, subject: string): Promise<void> {
  const typed = keys.map((k) => `CAST(${quoteIdentifier(k.name)} AS ${icebergToDuckDbType(k.type)}) AS ${quoteIdentifier(k.name)}`).join(', ');
  await session.run(`CREATE TEMP TABLE ${table} AS SELECT DISTINCT ${typed} FROM (${query})`);
  const list = keys.map((k) => quoteIdentifier(k.name)).join(', ');
  const [row] = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM ${table} WHERE ${anyNull(keys)}`);
  if (row?.['n'] !== '0') {
    throw new InvalidInputError(`${subject}: the delete keys hold ${String(row?.['n'])} null key(s) (${list}); keys must not be null`, { context: { keys: list } });
  }
}

const anyNull = (keys: readonly KeyField[]): string => keys.map((k) => `${quoteIdentifier(k.name)} IS NULL`).join(' OR ');
