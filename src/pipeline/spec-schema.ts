/**
 * The wire shape of a YAML pipeline spec, validated with zod, and the translation of zod's
 * issues into problems that name a field (positions are added by the YAML locator).
 *
 * Every mapping is strict: an unknown key is an error, never silently ignored, so a spec written
 * for a later version (expectations, streaming settings, …) fails clearly on an older Thund.
 */
import { z } from 'zod';
import type { FieldPath, SpecProblem } from './yaml-locator.js';
import { KEY_SEPARATOR, strictObject } from './strict-object.js';
import { CatalogWire, StorageWire } from './connection-schema.js';
import { PARTITION_HINT, parsePartitionField } from './ir/partition-field.js';

/** Names that become SQL identifiers (DuckDB views) must not need quoting. */
export const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const PIPELINE_NAME = /^[A-Za-z0-9_-]+$/;
/** `namespace.table`, namespace possibly multi-level (`a.b.t`), each part an identifier. */
export const TABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export const WRITE_MODES = ['append', 'overwrite'] as const;
/** What `thund run` does with a flow's rows: the write modes, or `upsert` by the table's `keys`. */
export const TABLE_MODES = [...WRITE_MODES, 'upsert'] as const;
export type WriteMode = (typeof TABLE_MODES)[number];

const nonEmptyText = (what: string) =>
  z.string({ error: `${what} must be a text value` }).refine((s) => s.trim() !== '', `${what} must not be empty`);

const pathEntry = nonEmptyText('a path');

export const SourceWire = strictObject(
  {
    format: z.literal('parquet', { error: 'format must be "parquet" (the only source format so far)' }),
    path: z.union([pathEntry, z.array(pathEntry).min(1, 'path list must not be empty')], {
      error: 'path must be a path or glob, or a list of them',
    }),
  },
  'a source',
);

/** Table properties are strings in Iceberg; YAML numbers and booleans are accepted as text. */
const propertyValue = z
  .union([z.string(), z.bigint(), z.number(), z.boolean()], {
    error: 'a table property value must be a string, number or boolean',
  })
  .transform((value) => String(value));

export const TableWire = strictObject(
  {
    mode: z.enum(TABLE_MODES, { error: `mode must be one of: ${TABLE_MODES.join(', ')}` }).default('append'),
    keys: z
      .array(z.string().regex(SQL_IDENTIFIER, 'a key must be a column name'), { error: 'keys must be a list of column names' })
      .min(1, 'keys must name at least one column')
      .optional(),
    properties: z
      .record(z.string().min(1, 'a table property name must not be empty'), propertyValue, {
        error: 'properties must be a mapping of property name to value',
      })
      .default({}),
    partitioned_by: z
      .array(z.string({ error: `a partition term must be ${PARTITION_HINT}` }).superRefine((term, context) => {
        if (parsePartitionField(term) !== undefined) return;
        // YAML splits `[bucket(16, id)]` at the comma: say how to write it.
        const split = term.includes('(') && !term.includes(')') ? '; in a [...] list quote terms that contain a comma: "bucket(16, id)"' : '';
        context.addIssue({ code: 'custom', message: `a partition term must be ${PARTITION_HINT}${split}` });
      }), {
        error: 'partitioned_by must be a list of partition terms, e.g. [day(ts), "bucket(16, id)"]',
      })
      .optional(),
  },
  'a table',
).superRefine((table, context) => {
  if (table.mode === 'upsert' && table.keys === undefined) {
    context.addIssue({ code: 'custom', path: ['mode'], message: 'mode upsert needs keys: the columns that identify a row, e.g. keys: [order_id]' });
  }
  if (table.mode !== 'upsert' && table.keys !== undefined) {
    context.addIssue({ code: 'custom', path: ['keys'], message: `keys are used only with mode: upsert (this table's mode is ${table.mode})` });
  }
});

export const FlowWire = strictObject(
  {
    target: z.string({ error: 'target must be a table name such as lake.orders' }),
    sql: nonEmptyText('sql'),
  },
  'a flow',
);

const mapping = <T extends z.ZodType>(value: T, what: string) =>
  z.record(z.string(), value, { error: `${what} must be a mapping of name to definition` });

export const PipelineSpecWire = strictObject(
  {
    pipeline: z
      .string({ error: 'pipeline must be the pipeline name' })
      .regex(PIPELINE_NAME, 'pipeline name may contain only letters, digits, "_" and "-"'),
    sources: mapping(SourceWire, 'sources'),
    tables: mapping(TableWire, 'tables'),
    flows: mapping(FlowWire, 'flows'),
    catalog: CatalogWire.optional(),
    storage: StorageWire.optional(),
  },
  'the pipeline spec (top level)',
);

export type PipelineSpecWire = z.output<typeof PipelineSpecWire>;

/** zod's issues as spec problems: a missing field is reported at its parent. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[]): SpecProblem[] {
  return issues.flatMap((issue): SpecProblem[] => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (issue.code === 'unrecognized_keys') {
      const messages = issue.message.split(KEY_SEPARATOR);
      return issue.keys.map((key, i) => ({
        path: [...path, key],
        message: messages[i] ?? `unknown field "${key}"`,
        target: 'key' as const,
      }));
    }
    if ('input' in issue && issue.input === undefined && path.length > 0) {
      return [{ path: path.slice(0, -1), message: `missing required field "${String(path.at(-1))}"`, target: 'key' }];
    }
    return [{ path, message: withInput(issue.message, issue.input, path) }];
  });
}

/** `*_env` fields name a variable; a user may have pasted the secret itself there instead. */
const NAMES_A_SECRET = /_env$/;

function withInput(message: string, input: unknown, path: FieldPath): string {
  if (input === undefined || typeof input === 'object') return message;
  const field = path.at(-1);
  if (typeof field === 'string' && NAMES_A_SECRET.test(field)) return message;
  const shown = typeof input === 'string' ? JSON.stringify(input) : String(input);
  return path.length === 0 ? message : `${message}, got ${shown}`;
}
