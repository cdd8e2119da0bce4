/**
 * The typed TypeScript front end. Produces the same IR as the YAML spec:
 *
 * ```ts
 * const graph = pipeline('orders')
 *   .source('raw_orders', parquet('data/*.parquet'), { watermark: { column: 'ts', delay: '10 minutes' } })
 *   .streamingTable('lake.orders', { partitionedBy: ['day(ts)'] })
 *   .flow('load_orders', { target: 'lake.orders', sql: 'SELECT * FROM STREAM(raw_orders)' })
 *   .build();
 * ```
 * Each element's origin is the line of the caller that declared it. Every input is checked as it
 * is declared (builder-input-schema.ts), for callers the compiler did not check.
 */
import { checkBuilderInput } from './builder-input-check.js';
import { callerOrigin, type Origin } from './ir/origin.js';
import { kindWords, type DatasetKind, type KafkaSourceOptions, type ParquetSourceOptions, type SourceOptions } from './ir/dataset.js';
import { flow, kafkaOptions, source, type FlowInput, type SourceInput } from './ir/declarations.js';
import { sink, table, view, type Declared, type SinkInput, type TableInput, type ViewInput } from './ir/dataset-declarations.js';
import type { PipelineGraph } from './ir/graph.js';
import { GraphRegistry } from './ir/registry.js';

export type { FlowInput, SourceInput } from './ir/declarations.js';
export type { SinkInput, TableInput, ViewInput } from './ir/dataset-declarations.js';

/** This file and the IR helpers it calls: stack frames to skip when finding the caller. */
const INTERNAL = ['/pipeline/builder.ts', '/pipeline/builder.js', '/pipeline/ir/origin.ts', '/pipeline/ir/origin.js'];

export function parquet(paths: string | readonly string[]): ParquetSourceOptions {
  checkBuilderInput('parquet', paths, 'parquet()', ['paths']);
  return { format: 'parquet', paths: typeof paths === 'string' ? [paths] : [...paths] };
}

export function kafka(options: Pick<KafkaSourceOptions, 'topic'> & Partial<Omit<KafkaSourceOptions, 'format'>>): KafkaSourceOptions {
  checkBuilderInput('kafka', options, 'kafka()');
  return kafkaOptions(options);
}

export class PipelineBuilder {
  private readonly registry: GraphRegistry;

  constructor(name: string) {
    checkBuilderInput('name', name, 'pipeline', ['name']);
    this.registry = new GraphRegistry(name);
  }

  source(name: string, options: SourceOptions, input: SourceInput = {}): this {
    const where = element('source', name);
    checkBuilderInput('sourceOptions', options, where, ['options']);
    checkBuilderInput('source', input, where);
    this.registry.registerDataset(source(name, options, input, here()));
    return this;
  }

  streamingTable(name: string, input: TableInput = {}): this {
    checkBuilderInput('table', input, element('streaming-table', name));
    return this.add(table('streaming-table', name, input, { element: here() }));
  }

  materializedView(name: string, input: TableInput = {}): this {
    checkBuilderInput('table', input, element('materialized-view', name));
    return this.add(table('materialized-view', name, input, { element: here() }));
  }

  view(name: string, input: ViewInput): this {
    checkBuilderInput('view', input, element('view', name));
    return this.add(view('view', name, input, { element: here() }));
  }

  temporaryView(name: string, input: ViewInput): this {
    checkBuilderInput('view', input, element('temporary-view', name));
    return this.add(view('temporary-view', name, input, { element: here() }));
  }

  sink(name: string, input: SinkInput): this {
    checkBuilderInput('sink', input, element('sink', name));
    return this.add(sink(name, input, { element: here() }));
  }

  flow(name: string, input: FlowInput): this {
    checkBuilderInput('flow', input, element('flow', name));
    this.registry.registerFlow(flow(name, input, { element: here() }));
    return this;
  }

  build(): PipelineGraph {
    return this.registry.build();
  }

  private add(declared: Declared): this {
    this.registry.registerDataset(declared.dataset);
    if (declared.flow !== undefined) this.registry.registerFlow(declared.flow);
    return this;
  }
}

export function pipeline(name: string): PipelineBuilder {
  return new PipelineBuilder(name);
}

/** `streaming table "lake.orders"`: the element a refusal names, once its name is known to be a string. */
function element(kind: DatasetKind | 'flow', name: string): string {
  const words = kind === 'flow' ? kind : kindWords(kind);
  checkBuilderInput('name', name, words, ['name']);
  return `${words} "${name}"`;
}

function here(): Origin {
  return callerOrigin(INTERNAL);
}
