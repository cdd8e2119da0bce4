/** The dataset-level edges of a graph (read → target, through each flow), shared by validation and ordering. */
import { findDataset, nameKey, type PipelineGraph } from './ir/graph.js';

export interface DatasetEdge {
  /** Dataset keys (lower-case names). */
  readonly from: string;
  readonly to: string;
  readonly flow: string;
}

/** Edges between declared datasets only; unknown names are validate()'s business. */
export function datasetEdges(graph: PipelineGraph): DatasetEdge[] {
  const edges: DatasetEdge[] = [];
  for (const flow of graph.flows) {
    if (findDataset(graph, flow.target) === undefined) continue;
    for (const read of flow.dependencies?.reads ?? []) {
      if (findDataset(graph, read.name) === undefined) continue;
      edges.push({ from: nameKey(read.name), to: nameKey(flow.target), flow: flow.name });
    }
  }
  return edges;
}
