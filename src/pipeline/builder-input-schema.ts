/**
 * zod schemas of the builder's inputs (pipeline(), parquet(), kafka() and each element's
 * options), so JavaScript and untyped TypeScript get at the declaring line what the compiler
 * would have told them. They check shapes only; text forms (types, durations, partition terms)
 * are parsed by ir/declarations.ts, which names what is wrong with them.
 *
 * `import 'thund'` loads no zod (it costs ~50 ms, as much again as the rest of the import), and
 * ESM cannot import on demand synchronously, so zod's CommonJS build is required the first time
 * a builder input is checked. The schemas are built then, once.
 *
 * The input types stay written out in ir/ (they are the public API and its report, which must
 * not be spelled in zod's types); `BuilderInputTypesMatch` below fails to compile when a schema
 * accepts more or less than its type.
 */
import { createRequire } from 'node:module';
import type { DataType } from 'apache-arrow';
import type { z } from 'zod';
import { isDataType, type FlowInput, type SourceInput } from './ir/declarations.js';
import type { SinkInput, TableInput, ViewInput } from './ir/dataset-declarations.js';
import type { kafka, parquet } from './builder.js';
import { KAFKA_VALUE_FORMATS, STARTING_OFFSETS, type SourceOptions } from './ir/dataset.js';
import { EXPECTATION_ACTIONS } from './ir/expectation.js';
import { OUTPUT_MODES } from './ir/streaming.js';
import { didYouMean } from './suggest.js';

type Zod = typeof z;

const CHANGE_FORMAT_KINDS = ['rows', 'row-kind', 'debezium'] as const;

/** `'a' | 'b'`: the values a field takes, as the message's "expected" part. */
const oneOf = (values: readonly (string | number)[]): string => values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value))).join(' | ');

function buildSchemas(z: Zod) {
  /** Each issue's message is what the field expects; the unknown-key one says which keys are allowed. */
  const strict = <Shape extends z.ZodRawShape>(shape: Shape, expected: string) => {
    const allowed = Object.keys(shape);
    return z
      .strictObject(shape, {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? issue.keys.map((key) => `unknown field${didYouMean(key, allowed)}; allowed: ${allowed.join(', ')}`).join(UNKNOWN_KEY_SEPARATOR)
            : expected,
      })
      .readonly();
  };
  const string = z.string({ error: 'a string' });
  const strings = z.array(string, { error: 'a list of strings' }).readonly();
  const stringMap = z.record(z.string(), string, { error: 'a mapping of name to string' }).readonly();
  const boolean = z.boolean({ error: 'true or false' });
  const enumOf = <const Values extends readonly string[]>(values: Values) => z.enum(values, { error: oneOf(values) });

  const columnType = z.union([string, z.custom<DataType>(isDataType)], { error: 'a type name or an Arrow DataType' });
  const schema = z
    .record(
      z.string(),
      z.union([columnType, strict({ type: columnType, nullable: boolean.optional() }, '{ type, nullable? }')], {
        error: 'a type name, an Arrow DataType or { type, nullable? }',
      }),
      { error: 'a mapping of column name to type' },
    )
    .readonly();
  const watermark = strict({ column: string, delay: string }, '{ column, delay }');
  const trigger = z.union([z.literal(['once', 'available-now']), strict({ processingTime: string }, '{ processingTime }')], {
    error: `'once' | 'available-now' | { processingTime }`,
  });
  const expectation = z.union(
    [string, strict({ condition: string, action: enumOf(EXPECTATION_ACTIONS).optional() }, `{ condition, action?: ${oneOf(EXPECTATION_ACTIONS)} }`)],
    { error: `a SQL condition or { condition, action?: ${oneOf(EXPECTATION_ACTIONS)} }` },
  );
  const expectations = z.record(z.string(), expectation, { error: 'a mapping of expectation name to condition' }).readonly();

  const changeFormatExpected = `{ kind: ${oneOf(CHANGE_FORMAT_KINDS)} }`;
  const changeFormat = z.discriminatedUnion(
    'kind',
    [
      strict({ kind: z.literal('rows') }, changeFormatExpected),
      strict({ kind: z.literal('row-kind'), column: string }, `{ kind: 'row-kind', column }`),
      strict({ kind: z.literal('debezium') }, changeFormatExpected),
    ],
    { error: changeFormatExpected },
  );
  const applyChanges = strict(
    {
      keys: strings,
      sequenceBy: string,
      applyAsDeletes: string.optional(),
      applyAsTruncates: string.optional(),
      ignoreNullUpdates: boolean.optional(),
      columnList: strings.optional(),
      exceptColumnList: strings.optional(),
      storedAsScdType: z.literal([1, 2], { error: oneOf([1, 2]) }).optional(),
      trackHistoryColumnList: strings.optional(),
      trackHistoryExceptColumnList: strings.optional(),
      changeFormat: changeFormat.optional(),
    },
    '{ keys, sequenceBy, … }',
  );

  const streaming = { outputMode: enumOf(OUTPUT_MODES).optional(), watermark: watermark.optional(), trigger: trigger.optional() };
  const flowFields = { kind: enumOf(['append', 'once']).optional(), applyChanges: applyChanges.optional(), ...streaming };
  const implicitFlow = { sql: string.optional(), ...flowFields };
  const datasetCommon = { schema: schema.optional(), comment: string.optional(), expectations: expectations.optional() };

  const parquetOptions = strict({ format: z.literal('parquet'), paths: strings }, `parquet(…): { format: 'parquet', paths }`);
  const kafkaFields = {
    topics: strings.optional(),
    bootstrapServers: string.optional(),
    valueFormat: enumOf(KAFKA_VALUE_FORMATS).optional(),
    startingOffsets: enumOf(STARTING_OFFSETS).optional(),
    options: stringMap.optional(),
  };
  const kafkaOptions = strict(
    {
      format: z.literal('kafka'),
      topic: string,
      topics: strings,
      bootstrapServers: string.optional(),
      valueFormat: enumOf(KAFKA_VALUE_FORMATS),
      startingOffsets: enumOf(STARTING_OFFSETS),
      options: stringMap,
    },
    `kafka(…): { format: 'kafka', topic, topics, valueFormat, startingOffsets, options }`,
  );

  return {
    name: string,
    parquet: z.union([string, strings], { error: 'a path or a list of paths' }),
    kafka: strict({ topic: string, ...kafkaFields }, '{ topic, … }'),
    sourceOptions: z.discriminatedUnion('format', [parquetOptions, kafkaOptions], { error: `parquet(…) or kafka(…): { format: ${oneOf(['parquet', 'kafka'])}, … }` }),
    source: strict({ schema: schema.optional(), watermark: watermark.optional(), comment: string.optional() }, '{ schema?, watermark?, comment? }'),
    table: strict(
      { ...implicitFlow, partitionedBy: strings.optional(), properties: stringMap.optional(), keys: strings.optional(), ...datasetCommon },
      '{ sql?, partitionedBy?, … }',
    ),
    view: strict({ ...implicitFlow, sql: string, ...datasetCommon }, '{ sql, … }'),
    sink: strict({ format: string, options: stringMap.optional(), comment: string.optional(), expectations: expectations.optional() }, '{ format, options?, … }'),
    flow: strict({ target: string, sql: string, ...flowFields }, '{ target, sql, … }'),
  };
}

/** Joins the messages of several unknown keys of one object; checkBuilderInput splits them again. */
export const UNKNOWN_KEY_SEPARATOR = '\u0000';

export type BuilderInputSchemas = ReturnType<typeof buildSchemas>;

let built: BuilderInputSchemas | undefined;

export function builderInputSchemas(): BuilderInputSchemas {
  built ??= buildSchemas((createRequire(import.meta.url)('zod') as { z: Zod }).z);
  return built;
}

/** Whether two types are the same (not merely assignable to each other: an extra optional field or a lost `readonly` counts). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Flat<T> = { [K in keyof T]: T[K] };
type Assert<T extends true> = T;

/** Compiles only while each schema accepts exactly its TypeScript input type. */
export type BuilderInputTypesMatch = [
  Assert<Same<z.input<BuilderInputSchemas['parquet']>, Parameters<typeof parquet>[0]>>,
  Assert<Same<z.input<BuilderInputSchemas['kafka']>, Flat<Parameters<typeof kafka>[0]>>>,
  Assert<Same<z.input<BuilderInputSchemas['sourceOptions']>, SourceOptions>>,
  Assert<Same<z.input<BuilderInputSchemas['source']>, SourceInput>>,
  Assert<Same<z.input<BuilderInputSchemas['table']>, TableInput>>,
  Assert<Same<z.input<BuilderInputSchemas['view']>, ViewInput>>,
  Assert<Same<z.input<BuilderInputSchemas['sink']>, SinkInput>>,
  Assert<Same<z.input<BuilderInputSchemas['flow']>, FlowInput>>,
];
