/**
 * The wire shape of a pipeline definition: the skeleton's spec (sources, tables, flows, catalog,
 * storage) extended with everything the IR can express: kafka sources, streaming tables, views,
 * sinks, declared schemas, partitioning, expectations, watermarks, triggers, output modes and
 * apply-changes flows. Every mapping stays strict: an unknown key is an error, never silently
 * ignored. `thund run`, `validate`, `plan` and `lower` all read this one shape.
 */
import { z } from 'zod';
import { CatalogWire, StorageWire } from './connection-schema.js';
import { parseColumnType, TYPE_NAMES_HINT } from './ir/column-types.js';
import { DURATION_HINT, tryParseDuration } from './ir/duration.js';
import { KAFKA_VALUE_FORMATS, STARTING_OFFSETS } from './ir/dataset.js';
import { EXPECTATION_ACTIONS } from './ir/expectation.js';
import { PARTITION_HINT, parsePartitionField } from './ir/partition-field.js';
import { OUTPUT_MODES } from './ir/streaming.js';
import { PIPELINE_NAME, TABLE_MODES } from './spec-schema.js';
import { strictObject } from './strict-object.js';

const text = (what: string) =>
  z.string({ error: `${what} must be a text value` }).refine((s) => s.trim() !== '', `${what} must not be empty`);

const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const column = (what: string) => z.string({ error: `${what} must be a column name` }).regex(COLUMN_NAME, `${what} must be a column name`);
const columns = (what: string) => z.array(column(what), { error: `${what} must be a list of column names` }).min(1, `${what} must not be empty`);

const duration = (what: string) =>
  z.string({ error: `${what} must be ${DURATION_HINT}` }).refine((s) => tryParseDuration(s) !== undefined, `${what} must be ${DURATION_HINT}`);

const stringMap = (what: string) =>
  z
    .record(
      z.string().min(1, `${what} names must not be empty`),
      z.union([z.string(), z.bigint(), z.number(), z.boolean()], { error: `${what} values must be strings, numbers or booleans` }).transform(String),
      { error: `${what} must be a mapping of name to value` },
    )
    .default({});

export const SchemaWire = z.record(
  z.string().regex(COLUMN_NAME, 'a column name must be a SQL identifier'),
  z.string({ error: `a column type must be a type name (${TYPE_NAMES_HINT})` }).refine((t) => parseColumnType(t) !== undefined, `unknown column type (types: ${TYPE_NAMES_HINT})`),
  { error: 'schema must be a mapping of column name to type' },
);

export const WatermarkWire = strictObject({ column: column('watermark column'), delay: duration('watermark delay') }, 'a watermark');

export const TriggerWire = z.union(
  [z.literal('once'), z.literal('available_now'), strictObject({ processing_time: duration('processing_time') }, 'a trigger')],
  { error: 'trigger must be once, available_now or { processing_time: "10 seconds" }' },
);

const ExpectationWire = z.union(
  [
    text('an expectation condition'),
    strictObject(
      {
        condition: text('condition'),
        action: z.enum(EXPECTATION_ACTIONS, { error: `action must be one of: ${EXPECTATION_ACTIONS.join(', ')}` }).default('warn'),
      },
      'an expectation',
    ),
  ],
  { error: 'an expectation is a SQL condition, or { condition, action: warn | drop | fail }' },
);

/** `rows`, `debezium` (op, before, after) or `{ row_kind: column }` (Flink +I, -U, +U, -D). */
const ChangeFormatWire = z.union([z.enum(['rows', 'debezium']), strictObject({ row_kind: column('row_kind') }, 'a change_format')], {
  error: 'change_format must be rows, debezium or { row_kind: <column> }',
});

export const ApplyChangesWire = strictObject(
  {
    keys: columns('keys'),
    sequence_by: column('sequence_by'),
    change_format: ChangeFormatWire.optional(),
    apply_as_deletes: text('apply_as_deletes').optional(),
    apply_as_truncates: text('apply_as_truncates').optional(),
    ignore_null_updates: z.boolean({ error: 'ignore_null_updates must be true or false' }).default(false),
    column_list: columns('column_list').optional(),
    except_column_list: columns('except_column_list').optional(),
    stored_as_scd_type: z.union([z.literal(1n), z.literal(2n)], { error: 'stored_as_scd_type must be 1 or 2' }).default(1n),
    track_history_column_list: columns('track_history_column_list').optional(),
    track_history_except_column_list: columns('track_history_except_column_list').optional(),
  },
  'apply_changes',
);

const streamingFields = {
  output_mode: z.enum(OUTPUT_MODES, { error: `output_mode must be one of: ${OUTPUT_MODES.join(', ')}` }).optional(),
  watermark: WatermarkWire.optional(),
  trigger: TriggerWire.optional(),
};

/** The flow a dataset's own `sql` defines. */
const implicitFlowFields = {
  sql: text('sql').optional(),
  once: z.boolean({ error: 'once must be true or false' }).optional(),
  apply_changes: ApplyChangesWire.optional(),
  ...streamingFields,
};

const pathEntry = text('a path');

const sourceCommon = { schema: SchemaWire.optional(), watermark: WatermarkWire.optional(), comment: text('comment').optional() };

const ParquetSourceWire = strictObject(
  {
    format: z.literal('parquet'),
    path: z.union([pathEntry, z.array(pathEntry).min(1, 'path list must not be empty')], { error: 'path must be a path or glob, or a list of them' }),
    ...sourceCommon,
  },
  'a parquet source',
);

const KafkaSourceWire = strictObject(
  {
    format: z.literal('kafka'),
    /** One topic, or several with `topics` (a source may name both: they are read together). */
    topic: text('topic').optional(),
    topics: z.array(text('topics entry'), { error: 'topics must be a list of topic names' }).min(1, 'topics must not be empty').optional(),
    bootstrap_servers: text('bootstrap_servers').optional(),
    value_format: z.enum(KAFKA_VALUE_FORMATS, { error: `value_format must be one of: ${KAFKA_VALUE_FORMATS.join(', ')}` }).default('json'),
    starting_offsets: z.enum(STARTING_OFFSETS, { error: `starting_offsets must be one of: ${STARTING_OFFSETS.join(', ')}` }).default('earliest'),
    options: stringMap('options'),
    ...sourceCommon,
  },
  'a kafka source',
).refine((source) => source.topic !== undefined || source.topics !== undefined, { message: 'a kafka source names its topic (topic: name) or topics (topics: [a, b])', path: ['topic'] });

export const DefinitionSourceWire = z.discriminatedUnion('format', [ParquetSourceWire, KafkaSourceWire], {
  error: 'format must be "parquet" or "kafka"',
});

export const DefinitionTableWire = strictObject(
  {
    kind: z.enum(['materialized_view', 'streaming_table'], { error: 'kind must be materialized_view or streaming_table' }).default('materialized_view'),
    /**
     * The skeleton's write mode: the output mode of flows that do not name one (overwrite =
     * complete, upsert = update by `keys`).
     */
    mode: z.enum(TABLE_MODES, { error: `mode must be one of: ${TABLE_MODES.join(', ')}` }).optional(),
    /** The columns that identify a row: an update (upsert) replaces the live row with the same key. */
    keys: columns('keys').optional(),
    properties: stringMap('properties'),
    partitioned_by: z
      .array(
        z.string({ error: `a partition term must be ${PARTITION_HINT}` }).superRefine((term, context) => {
          if (parsePartitionField(term) !== undefined) return;
          // YAML splits `[bucket(16, id)]` at the comma: say how to write it.
          const split = term.includes('(') && !term.includes(')') ? '; in a [...] list quote terms that contain a comma: "bucket(16, id)"' : '';
          context.addIssue({ code: 'custom', message: `a partition term must be ${PARTITION_HINT}${split}` });
        }),
        { error: 'partitioned_by must be a list of partition terms, e.g. [day(ts), "bucket(16, id)"]' },
      )
      .optional(),
    schema: SchemaWire.optional(),
    comment: text('comment').optional(),
    expectations: z.record(z.string(), ExpectationWire).optional(),
    ...implicitFlowFields,
  },
  'a table',
).superRefine((table, context) => {
  if (table.mode === 'upsert' && table.keys === undefined) {
    context.addIssue({ code: 'custom', path: ['mode'], message: 'mode upsert needs keys: the columns that identify a row, e.g. keys: [order_id]' });
  }
  if (table.mode !== undefined && table.mode !== 'upsert' && table.keys !== undefined) {
    context.addIssue({ code: 'custom', path: ['keys'], message: `keys are used only with mode: upsert (this table's mode is ${table.mode})` });
  }
});

export const DefinitionViewWire = strictObject(
  {
    temporary: z.boolean({ error: 'temporary must be true or false' }).default(false),
    schema: SchemaWire.optional(),
    comment: text('comment').optional(),
    expectations: z.record(z.string(), ExpectationWire).optional(),
    ...implicitFlowFields,
    sql: text('sql'),
  },
  'a view',
);

export const DefinitionSinkWire = strictObject(
  {
    format: text('format'),
    options: stringMap('options'),
    comment: text('comment').optional(),
    expectations: z.record(z.string(), ExpectationWire).optional(),
  },
  'a sink',
);

export const DefinitionFlowWire = strictObject(
  {
    target: z.string({ error: 'target must be a dataset name such as lake.orders' }),
    sql: text('sql'),
    once: z.boolean({ error: 'once must be true or false' }).optional(),
    apply_changes: ApplyChangesWire.optional(),
    ...streamingFields,
  },
  'a flow',
);

const mapping = <T extends z.ZodType>(value: T, what: string) =>
  z.record(z.string(), value, { error: `${what} must be a mapping of name to definition` }).default({});

export const PipelineDefinitionWire = strictObject(
  {
    pipeline: z
      .string({ error: 'pipeline must be the pipeline name' })
      .regex(PIPELINE_NAME, 'pipeline name may contain only letters, digits, "_" and "-"'),
    sources: mapping(DefinitionSourceWire, 'sources'),
    tables: mapping(DefinitionTableWire, 'tables'),
    views: mapping(DefinitionViewWire, 'views'),
    sinks: mapping(DefinitionSinkWire, 'sinks'),
    flows: mapping(DefinitionFlowWire, 'flows'),
    catalog: CatalogWire.optional(),
    storage: StorageWire.optional(),
    /** `thund serve`'s settings, validated by serve (src/app/serve/serve-file.ts); other commands ignore them. */
    serve: z.record(z.string(), z.unknown(), { error: 'serve must be a mapping of setting to value' }).optional(),
  },
  'the pipeline definition (top level)',
);

export type PipelineDefinitionWire = z.output<typeof PipelineDefinitionWire>;
export type DefinitionTableWire = z.output<typeof DefinitionTableWire>;
export type ApplyChangesWire = z.output<typeof ApplyChangesWire>;
