/**
 * Execution order of a graph: a dataset after every dataset it is computed from, a flow after every
 * flow that writes what it reads. Stable: among elements that are ready together, the one declared
 * first goes first, so the same pipeline always plans the same way.
 */
import { InvalidInputError } from '../errors.js';
import type { Dataset } from './ir/dataset.js';
import type { Flow } from './ir/flow.js';
import { nameKey, type PipelineGraph } from './ir/graph.js';
import { datasetEdges } from './dependency-edges.js';

export interface TopoOrder {
  readonly datasets: readonly Dataset[];
  readonly flows: readonly Flow[];
}

export function topoOrder(graph: PipelineGraph): TopoOrder {
  const datasetKeys = graph.datasets.map((dataset) => nameKey(dataset.name));
  const datasetOrder = kahn(
    datasetKeys,
    datasetEdges(graph).map(({ from, to }) => [from, to] as const),
  );
  const writers = new Map<string, string[]>();
  for (const flow of graph.flows) writers.set(nameKey(flow.target), [...(writers.get(nameKey(flow.target)) ?? []), flow.name]);
  const flowEdges = graph.flows.flatMap((flow) =>
    (flow.dependencies?.reads ?? []).flatMap((read) => (writers.get(nameKey(read.name)) ?? []).map((writer) => [writer, flow.name] as const)),
  );
  const flowOrder = kahn(
    graph.flows.map((flow) => flow.name),
    flowEdges,
  );
  return {
    datasets: datasetOrder.map((index) => graph.datasets[index] as Dataset),
    flows: flowOrder.map((index) => graph.flows[index] as Flow),
  };
}

/** Indexes of `nodes` in dependency order, ties by index; a cycle is an InvalidInputError. */
function kahn(nodes: readonly string[], edges: readonly (readonly [string, string])[]): number[] {
  const index = new Map(nodes.map((node, i) => [node, i]));
  const incoming = nodes.map(() => 0);
  const outgoing = nodes.map((): number[] => []);
  for (const [from, to] of edges) {
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined || b === undefined) continue;
    outgoing[a]?.push(b);
    incoming[b] = (incoming[b] ?? 0) + 1;
  }
  const done = nodes.map(() => false);
  const order: number[] = [];
  while (order.length < nodes.length) {
    const next = incoming.findIndex((count, i) => count === 0 && !done[i]);
    if (next === -1) {
      const stuck = nodes.filter((_, i) => !done[i]);
      throw new InvalidInputError(`the pipeline has a dependency cycle among: ${stuck.join(', ')}`, { context: { code: 'THUND_E_CYCLE' } });
    }
    done[next] = true;
    order.push(next);
    for (const to of outgoing[next] ?? []) incoming[to] = (incoming[to] ?? 0) - 1;
  }
  return order;
}
