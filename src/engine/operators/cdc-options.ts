/**
 * Options of CDC apply-changes (AUTO CDC in Spark/Databricks), validated with zod. Sequence,
 * delete and truncate conditions are DuckDB SQL over the input rows.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';

const NAMES = z.array(z.string().min(1));

export const CHANGE_FORMAT = z.discriminatedUnion('kind', [
  /** Plain rows; deletes and truncates only through applyAsDeletes / applyAsTruncates. */
  z.strictObject({ kind: z.literal('rows') }),
  /** Flink row kinds in `column`: +I and +U upsert, -D deletes, -U (the pre-image) is skipped. */
  z.strictObject({ kind: z.literal('row-kind'), column: z.string().min(1) }),
  /** Debezium envelopes as columns op (c|r|u|d|t), before and after (structs of the row image). */
  z.strictObject({ kind: z.literal('debezium') }),
]);
export type ChangeFormat = z.infer<typeof CHANGE_FORMAT>;

export const APPLY_CHANGES_OPTIONS = z
  .strictObject({
    keys: NAMES.min(1),
    /** A column or expression ordering the events of one key; for Debezium e.g. `source.lsn` or `ts_ms`. */
    sequenceBy: z.string().min(1),
    format: CHANGE_FORMAT.default({ kind: 'rows' }),
    applyAsDeletes: z.string().min(1).optional(),
    applyAsTruncates: z.string().min(1).optional(),
    ignoreNullUpdates: z.boolean().default(false),
    columnList: NAMES.optional(),
    exceptColumnList: NAMES.optional(),
    storedAsScdType: z.union([z.literal(1), z.literal(2)]).default(1),
    trackHistoryColumnList: NAMES.optional(),
    trackHistoryExceptColumnList: NAMES.optional(),
  })
  .superRefine((o, ctx) => {
    const problem = (message: string): void => void ctx.addIssue({ code: 'custom', message });
    if (o.columnList !== undefined && o.exceptColumnList !== undefined) problem('give columnList or exceptColumnList, not both');
    if (o.trackHistoryColumnList !== undefined && o.trackHistoryExceptColumnList !== undefined) {
      problem('give trackHistoryColumnList or trackHistoryExceptColumnList, not both');
    }
    if (o.storedAsScdType === 1 && (o.trackHistoryColumnList !== undefined || o.trackHistoryExceptColumnList !== undefined)) {
      problem('track history columns need SCD type 2');
    }
    if (o.storedAsScdType === 2 && o.applyAsTruncates !== undefined) problem('applyAsTruncates is only supported with SCD type 1');
    for (const key of o.keys) if (o.exceptColumnList?.includes(key)) problem(`key column "${key}" cannot be excepted`);
  });

export type ApplyChangesOptionsInput = z.input<typeof APPLY_CHANGES_OPTIONS>;
export type ApplyChangesOptions = z.output<typeof APPLY_CHANGES_OPTIONS>;

export function parseApplyChangesOptions(options: ApplyChangesOptionsInput): ApplyChangesOptions {
  const parsed = APPLY_CHANGES_OPTIONS.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` (${issue.path.join('.')})`;
    throw new InvalidInputError(`Invalid apply-changes options: ${issue?.message ?? 'unexpected shape'}${where}`);
  }
  return parsed.data;
}

/** Hidden columns of the normalised change relation. */
export const SEQUENCE_COLUMN = '__sequence';
export const OP_COLUMN = '__op';
/** SCD type 2 interval columns, of the sequence's type; the current row has __END_AT NULL. */
export const START_AT = '__START_AT';
export const END_AT = '__END_AT';
/** SCD type 1 state keeps deleted keys as tombstones so late events order against them. */
export const DELETED_COLUMN = '__deleted';
