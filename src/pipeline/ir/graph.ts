/**
 * The immutable pipeline graph: datasets and flows in declaration order. Produced by a
 * GraphRegistry (registry.ts); checked by validate(); ordered by topoOrder().
 */
import type { Dataset, KafkaSourceOptions, SourceDataset } from './dataset.js';
import type { Flow, FlowDependencies } from './flow.js';

export interface PipelineGraph {
  readonly name: string;
  readonly datasets: readonly Dataset[];
  readonly flows: readonly Flow[];
}

/** SQL names ignore case, so dataset lookups do too. */
export const nameKey = (name: string): string => name.toLowerCase();

export function findDataset(graph: PipelineGraph, name: string): Dataset | undefined {
  const key = nameKey(name);
  return graph.datasets.find((dataset) => nameKey(dataset.name) === key);
}

export function flowsInto(graph: PipelineGraph, datasetName: string): Flow[] {
  const key = nameKey(datasetName);
  return graph.flows.filter((flow) => nameKey(flow.target) === key);
}

export type KafkaSourceDataset = SourceDataset & { readonly source: KafkaSourceOptions };

/** The graph's Kafka sources, in declaration order. */
export function kafkaSources(graph: PipelineGraph): KafkaSourceDataset[] {
  return graph.datasets.filter((dataset): dataset is KafkaSourceDataset => dataset.kind === 'source' && dataset.source.format === 'kafka');
}

/** Freezes plain objects and arrays all the way down; class instances (Arrow types) stay as they are. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** A new graph with each flow's dependencies replaced where `dependencies` names the flow. */
export function withDependencies(graph: PipelineGraph, dependencies: ReadonlyMap<string, FlowDependencies>): PipelineGraph {
  return deepFreeze({
    name: graph.name,
    datasets: graph.datasets,
    flows: graph.flows.map((flow) => {
      const found = dependencies.get(flow.name);
      return found === undefined ? flow : { ...flow, dependencies: found };
    }),
  });
}
