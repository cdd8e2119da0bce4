/**
 * The one translation from authoring input (the builder's options; the YAML spec after zod) to IR
 * elements, so both front ends produce the same graph. Text forms (types, durations, partition
 * terms) are parsed here; a bad one is an InvalidInputError (the YAML front end checks them with
 * zod first, so there it names the position).
 */
import type { DataType } from 'apache-arrow';
import { InvalidInputError } from '../../errors.js';
import { parseColumnType, TYPE_NAMES_HINT, type DeclaredColumn, type DeclaredSchema } from './column-types.js';
import type { Dataset, KafkaSourceOptions, SourceOptions, TableIdentifierParts } from './dataset.js';
import { DURATION_HINT, parseDuration } from './duration.js';
import type { Expectation, ExpectationAction } from './expectation.js';
import type { ApplyChanges, ChangeFormat, ColumnSelection, Flow, FlowKind } from './flow.js';
import type { Origin } from './origin.js';
import { PARTITION_HINT, parsePartitionField, type PartitionField } from './partition-field.js';
import type { OutputMode, StreamingSettings, Trigger, Watermark } from './streaming.js';

export type ColumnTypeInput = string | DataType | { readonly type: string | DataType; readonly nullable?: boolean };
/** Column name → type, in column order. */
export type SchemaInput = Readonly<Record<string, ColumnTypeInput>>;

export interface WatermarkInput {
  readonly column: string;
  /** e.g. "10 minutes" */
  readonly delay: string;
}

export type TriggerInput = 'once' | 'available-now' | { readonly processingTime: string };

export interface ExpectationInput {
  readonly condition: string;
  readonly action?: ExpectationAction;
}

/** Expectation name → condition (warn) or condition and action. */
export type ExpectationsInput = Readonly<Record<string, string | ExpectationInput>>;

export interface ApplyChangesInput {
  readonly keys: readonly string[];
  readonly sequenceBy: string;
  readonly applyAsDeletes?: string;
  readonly applyAsTruncates?: string;
  readonly ignoreNullUpdates?: boolean;
  readonly columnList?: readonly string[];
  readonly exceptColumnList?: readonly string[];
  readonly storedAsScdType?: 1 | 2;
  readonly trackHistoryColumnList?: readonly string[];
  readonly trackHistoryExceptColumnList?: readonly string[];
  /** How change events are shaped; absent: Debezium when the input has op/before/after, else rows. */
  readonly changeFormat?: ChangeFormat;
}

export interface StreamingInput {
  readonly outputMode?: OutputMode;
  readonly watermark?: WatermarkInput;
  readonly trigger?: TriggerInput;
}

export interface FlowInput extends StreamingInput {
  readonly target: string;
  readonly sql: string;
  /** `append` (default) or `once`; a flow with `applyChanges` is an apply-changes flow. */
  readonly kind?: 'append' | 'once';
  readonly applyChanges?: ApplyChangesInput;
}

/** Origins of the parts of an element; the builder uses one origin for all of them. */
export interface ElementOrigins {
  readonly element: Origin;
  readonly query?: Origin;
  readonly expectation?: (name: string) => Origin;
}

export function declaredSchema(input: SchemaInput | undefined, where: string): DeclaredSchema | undefined {
  if (input === undefined) return undefined;
  return Object.entries(input).map(([name, spec]): DeclaredColumn => {
    if (typeof spec === 'object' && 'type' in spec && !isDataType(spec)) {
      const inner = columnType(spec.type, name, where);
      return { name, type: inner.type, nullable: spec.nullable ?? inner.nullable };
    }
    return { name, ...columnType(spec as string | DataType, name, where) };
  });
}

export function isDataType(value: unknown): value is DataType {
  return typeof value === 'object' && value !== null && 'typeId' in value;
}

function columnType(spec: string | DataType, column: string, where: string): { type: DataType; nullable: boolean } {
  if (typeof spec !== 'string') return { type: spec, nullable: true };
  const parsed = parseColumnType(spec);
  if (parsed === undefined) {
    throw new InvalidInputError(`${where}: column "${column}" has unknown type "${spec}" (types: ${TYPE_NAMES_HINT})`, { context: { column } });
  }
  return parsed;
}

export function watermark(input: WatermarkInput | undefined, where: string): Watermark | undefined {
  if (input === undefined) return undefined;
  return { column: input.column, delay: parseDuration(input.delay, `${where}: watermark delay`) };
}

export function trigger(input: TriggerInput | undefined, where: string): Trigger | undefined {
  if (input === undefined) return undefined;
  if (input === 'once' || input === 'available-now') return { kind: input };
  return { kind: 'processing-time', interval: parseDuration(input.processingTime, `${where}: processing-time trigger (${DURATION_HINT})`) };
}

export function streamingSettings(input: StreamingInput, where: string): StreamingSettings {
  const mark = watermark(input.watermark, where);
  const when = trigger(input.trigger, where);
  return { ...(mark === undefined ? {} : { watermark: mark }), ...(when === undefined ? {} : { trigger: when }) };
}

export function expectations(input: ExpectationsInput | undefined, origins: ElementOrigins): Expectation[] {
  return Object.entries(input ?? {}).map(([name, spec]) => ({
    name,
    condition: (typeof spec === 'string' ? spec : spec.condition).trim(),
    action: typeof spec === 'string' ? 'warn' : (spec.action ?? 'warn'),
    origin: origins.expectation?.(name) ?? origins.element,
  }));
}

export function partitioning(terms: readonly string[] | undefined, where: string): PartitionField[] {
  return (terms ?? []).map((term) => {
    const field = parsePartitionField(term);
    if (field === undefined) throw new InvalidInputError(`${where}: "${term}" is not a partition term (${PARTITION_HINT})`, { context: { term } });
    return field;
  });
}

/** `a.b.orders` → { namespace: ['a', 'b'], name: 'orders' }. */
export function tableIdentifier(name: string): TableIdentifierParts {
  const parts = name.split('.');
  const last = parts.pop() ?? name;
  return { namespace: parts, name: last };
}

function selection(include: readonly string[] | undefined, except: readonly string[] | undefined, where: string): ColumnSelection | undefined {
  if (include !== undefined && except !== undefined) {
    throw new InvalidInputError(`${where}: give either a column list or an except-column list, not both`);
  }
  if (include !== undefined) return { include: [...include] };
  return except === undefined ? undefined : { except: [...except] };
}

export function applyChanges(input: ApplyChangesInput, where: string): ApplyChanges {
  const columns = selection(input.columnList, input.exceptColumnList, `${where}: apply changes columns`);
  const trackHistory = selection(input.trackHistoryColumnList, input.trackHistoryExceptColumnList, `${where}: track history`);
  return {
    keys: [...input.keys],
    sequenceBy: input.sequenceBy,
    ...(input.applyAsDeletes === undefined ? {} : { applyAsDeletes: input.applyAsDeletes.trim() }),
    ...(input.applyAsTruncates === undefined ? {} : { applyAsTruncates: input.applyAsTruncates.trim() }),
    ignoreNullUpdates: input.ignoreNullUpdates ?? false,
    ...(columns === undefined ? {} : { columns }),
    storedAsScdType: input.storedAsScdType ?? 1,
    ...(trackHistory === undefined ? {} : { trackHistory }),
    ...(input.changeFormat === undefined ? {} : { changeFormat: input.changeFormat }),
  };
}

export function flow(name: string, input: FlowInput, origins: ElementOrigins, implicit = false): Flow {
  const where = `flow "${name}"`;
  const kind: FlowKind = input.applyChanges === undefined ? (input.kind ?? 'append') : 'apply-changes';
  const base = {
    name,
    target: input.target,
    query: { language: 'sql' as const, text: input.sql.trim(), origin: origins.query ?? origins.element },
    // Apply-changes upserts by key: its result is an update stream, whatever the author wrote.
    outputMode: input.outputMode ?? (kind === 'apply-changes' ? 'update' : 'append'),
    streaming: streamingSettings(input, where),
    implicit,
    origin: origins.element,
  };
  if (kind === 'apply-changes' && input.applyChanges !== undefined) {
    return { ...base, kind, changes: applyChanges(input.applyChanges, where) };
  }
  return { ...base, kind: kind === 'once' ? 'once' : 'append' };
}

export function kafkaOptions(
  input: (Pick<KafkaSourceOptions, 'topic'> | Pick<KafkaSourceOptions, 'topics'>) & Partial<Omit<KafkaSourceOptions, 'format' | 'topic' | 'topics'>>,
): KafkaSourceOptions {
  const topics = [...new Set('topics' in input ? input.topics : [input.topic])];
  const [topic] = topics;
  if (topic === undefined) throw new InvalidInputError('a Kafka source names at least one topic');
  return {
    format: 'kafka',
    topic,
    topics,
    ...(input.bootstrapServers === undefined ? {} : { bootstrapServers: input.bootstrapServers }),
    valueFormat: input.valueFormat ?? 'json',
    startingOffsets: input.startingOffsets ?? 'earliest',
    options: { ...(input.options ?? {}) },
  };
}

export interface SourceInput {
  readonly schema?: SchemaInput;
  readonly watermark?: WatermarkInput;
  readonly comment?: string;
}

export function source(name: string, options: SourceOptions, input: SourceInput, origin: Origin): Dataset {
  const where = `source "${name}"`;
  const schema = declaredSchema(input.schema, where);
  const mark = watermark(input.watermark, where);
  return {
    kind: 'source',
    name,
    source: options,
    ...(input.comment === undefined ? {} : { comment: input.comment }),
    ...(schema === undefined ? {} : { schema }),
    ...(mark === undefined ? {} : { watermark: mark }),
    origin,
  };
}
