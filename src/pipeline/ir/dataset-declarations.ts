/**
 * Tables, views and sinks from authoring input, shared by the builder and the YAML spec. A dataset
 * written with its own `sql` also gets its implicit flow (same name), as SDP's `@dp.table` does.
 */
import { kindWords, type Dataset, type SinkDataset, type TableDataset, type ViewDataset } from './dataset.js';
import {
  declaredSchema,
  expectations,
  flow,
  partitioning,
  tableIdentifier,
  type ApplyChangesInput,
  type ElementOrigins,
  type ExpectationsInput,
  type SchemaInput,
  type StreamingInput,
} from './declarations.js';
import type { Flow } from './flow.js';

export interface ImplicitFlowInput extends StreamingInput {
  /** The query of the dataset's own flow (named like the dataset). */
  readonly sql?: string;
  readonly kind?: 'append' | 'once';
  readonly applyChanges?: ApplyChangesInput;
}

export interface TableInput extends ImplicitFlowInput {
  readonly schema?: SchemaInput;
  /** Iceberg partition terms: `day(ts)`, `bucket(16, id)`, `region`. */
  readonly partitionedBy?: readonly string[];
  readonly properties?: Readonly<Record<string, string>>;
  /** Key columns: a batch flow in output mode update upserts the table by them. */
  readonly keys?: readonly string[];
  readonly comment?: string;
  readonly expectations?: ExpectationsInput;
}

export interface ViewInput extends ImplicitFlowInput {
  readonly sql: string;
  readonly schema?: SchemaInput;
  readonly comment?: string;
  readonly expectations?: ExpectationsInput;
}

export interface SinkInput {
  readonly format: string;
  readonly options?: Readonly<Record<string, string>>;
  readonly comment?: string;
  readonly expectations?: ExpectationsInput;
}

export interface Declared {
  readonly dataset: Dataset;
  readonly flow?: Flow;
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

function implicitFlow(name: string, input: ImplicitFlowInput, origins: ElementOrigins): Flow | undefined {
  if (input.sql === undefined) return undefined;
  const { sql, kind, applyChanges, outputMode, watermark, trigger } = input;
  return flow(
    name,
    { target: name, sql, ...optional('kind', kind), ...optional('applyChanges', applyChanges), ...optional('outputMode', outputMode), ...optional('watermark', watermark), ...optional('trigger', trigger) },
    origins,
    true,
  );
}

export function table(kind: TableDataset['kind'], name: string, input: TableInput, origins: ElementOrigins): Declared {
  const where = `${kindWords(kind)} "${name}"`;
  const dataset: TableDataset = {
    kind,
    name,
    ...optional('comment', input.comment),
    ...optional('schema', declaredSchema(input.schema, where)),
    table: {
      identifier: tableIdentifier(name),
      partitioning: partitioning(input.partitionedBy, where),
      properties: { ...(input.properties ?? {}) },
      ...optional('keys', input.keys === undefined ? undefined : [...input.keys]),
    },
    expectations: expectations(input.expectations, origins),
    origin: origins.element,
  };
  return { dataset, ...optional('flow', implicitFlow(name, input, origins)) };
}

export function view(kind: ViewDataset['kind'], name: string, input: ViewInput, origins: ElementOrigins): Declared {
  const where = `${kindWords(kind)} "${name}"`;
  const dataset: ViewDataset = {
    kind,
    name,
    ...optional('comment', input.comment),
    ...optional('schema', declaredSchema(input.schema, where)),
    expectations: expectations(input.expectations, origins),
    origin: origins.element,
  };
  return { dataset, ...optional('flow', implicitFlow(name, input, origins)) };
}

export function sink(name: string, input: SinkInput, origins: ElementOrigins): Declared {
  const dataset: SinkDataset = {
    kind: 'sink',
    name,
    ...optional('comment', input.comment),
    format: input.format,
    options: { ...(input.options ?? {}) },
    expectations: expectations(input.expectations, origins),
    origin: origins.element,
  };
  return { dataset };
}
