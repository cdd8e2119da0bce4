/**
 * An apply-changes flow's IR (`ApplyChanges`) as the operator's options. The input format is
 * the declared `changeFormat`; when none is declared it is read from the change rows' columns:
 * Debezium envelopes when they have `op`, `before` and `after` and an image is a struct (the
 * envelope's shape cannot be mistaken for a plain row; a batch of inserts only may carry an
 * untyped all-null `before`), plain rows otherwise. Row kinds are never
 * guessed: the column holding them has no standard name, so it must be declared.
 */
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { ApplyChanges, ChangeFormat } from '../../../pipeline/ir/flow.js';
import type { ApplyChangesOptionsInput } from '../../operators/cdc-options.js';
import { describeRelation } from '../../operators/sql.js';
import { quoteIdentifier } from '../../../duckdb/session.js';

/** The options with the format as declared (rows when none is); see `inferChangeFormat`. */
export function applyChangesOptions(changes: ApplyChanges, format: ChangeFormat = changes.changeFormat ?? { kind: 'rows' }): ApplyChangesOptionsInput {
  const { columns, trackHistory } = changes;
  return {
    keys: [...changes.keys],
    sequenceBy: changes.sequenceBy,
    format: format.kind === 'row-kind' ? { kind: 'row-kind', column: format.column } : { kind: format.kind },
    ...(changes.applyAsDeletes === undefined ? {} : { applyAsDeletes: changes.applyAsDeletes }),
    ...(changes.applyAsTruncates === undefined ? {} : { applyAsTruncates: changes.applyAsTruncates }),
    ignoreNullUpdates: changes.ignoreNullUpdates,
    ...(columns === undefined ? {} : 'include' in columns ? { columnList: [...columns.include] } : { exceptColumnList: [...columns.except] }),
    storedAsScdType: changes.storedAsScdType,
    ...(trackHistory === undefined
      ? {}
      : 'include' in trackHistory
        ? { trackHistoryColumnList: [...trackHistory.include] }
        : { trackHistoryExceptColumnList: [...trackHistory.except] }),
  };
}

/** The declared format, or the one the columns of table `relation` show. */
export async function inferChangeFormat(session: DuckDbSession, changes: ApplyChanges, relation: string): Promise<ChangeFormat> {
  if (changes.changeFormat !== undefined) return changes.changeFormat;
  const columns = await describeRelation(session, quoteIdentifier(relation));
  const typeOf = (name: string): string | undefined => columns.find((c) => c.name.toLowerCase() === name)?.type;
  const isStruct = (name: string): boolean => typeOf(name)?.startsWith('STRUCT') === true;
  const envelope = typeOf('op') !== undefined && typeOf('before') !== undefined && typeOf('after') !== undefined && (isStruct('before') || isStruct('after'));
  return envelope ? { kind: 'debezium' } : { kind: 'rows' };
}
