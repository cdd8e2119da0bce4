/**
 * The mutable registration context both authoring front ends (builder, YAML spec) fill in;
 * `build()` hands out an immutable graph. Registration never rejects anything: validate() reports
 * every problem at once, with each element's origin.
 */
import type { Dataset } from './dataset.js';
import type { Flow } from './flow.js';
import { deepFreeze, type PipelineGraph } from './graph.js';

export class GraphRegistry {
  private readonly datasets: Dataset[] = [];
  private readonly flows: Flow[] = [];

  constructor(readonly pipelineName: string) {}

  registerDataset(dataset: Dataset): this {
    this.datasets.push(dataset);
    return this;
  }

  registerFlow(flow: Flow): this {
    this.flows.push(flow);
    return this;
  }

  build(): PipelineGraph {
    return deepFreeze(structuredCloneGraph({ name: this.pipelineName, datasets: this.datasets, flows: this.flows }));
  }
}

/** A copy that later registrations cannot change (Arrow types are immutable values and shared). */
function structuredCloneGraph(graph: PipelineGraph): PipelineGraph {
  return { name: graph.name, datasets: graph.datasets.map(copyPlain), flows: graph.flows.map(copyPlain) };
}

function copyPlain<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyPlain) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, copyPlain(child)])) as T;
}
