/**
 * What `thund run` would recompute, per table dataset, from the catalog's current state: "stale:
 * never run", "stale: upstream lake.x changed (snapshot a → b)", "stale: definition changed",
 * "up to date", … A table downstream of one that will be recomputed is stale too. Reads only:
 * tables are loaded, source files listed; nothing is written.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { SourceConnector } from '../../../connectors/source.js';
import { LazySession } from '../../duckdb/lazy-session.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { isTableDataset, type TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import { findDataset, flowsInto, nameKey, type PipelineGraph } from '../../pipeline/ir/graph.js';
import { topoOrder } from '../../pipeline/topo-order.js';
import { flowDefinitionHash } from './definition-hash.js';
import { catalogMetadata } from './flow-skip.js';
import { isStreamingFlow } from './flow-dispatch.js';
import { flowHasRun, stalenessOf } from './staleness.js';
import { upstreamOf, type UpstreamLookups } from './upstream-state.js';

/** Table dataset name → its state in words. */
export async function planStaleness(graph: PipelineGraph, catalog: Pick<Catalog, 'loadTable'>, sources: SourceConnector): Promise<Map<string, string>> {
  const session = new LazySession({ threads: 1 });
  const metadataOf = catalogMetadata(catalog);
  const lookups: UpstreamLookups = {
    tableSnapshot: async (dataset) => (await metadataOf(dataset))?.currentSnapshotId,
    sourceFingerprint: async (dataset) => (dataset.source.format === 'parquet' ? sources.fingerprint?.(session.get, dataset) : undefined),
  };
  try {
    const recomputed = new Set<string>();
    const states = new Map<string, string[]>();
    for (const flow of topoOrder(graph).flows) {
      const target = findDataset(graph, flow.target);
      if (target === undefined || !isTableDataset(target)) continue;
      const state = await flowState(graph, flow, target, await metadataOf(target), lookups, recomputed);
      if (state.startsWith('stale') || state.startsWith('streaming')) recomputed.add(nameKey(target.name));
      states.set(target.name, [...(states.get(target.name) ?? []), flowsInto(graph, target.name).length > 1 ? `${flow.name}: ${state}` : state]);
    }
    return new Map([...states].map(([name, parts]) => [name, parts.join('; ')]));
  } finally {
    await session.close();
  }
}

async function flowState(
  graph: PipelineGraph,
  flow: Flow,
  target: TableDataset,
  metadata: TableMetadata | undefined,
  lookups: UpstreamLookups,
  recomputed: ReadonlySet<string>,
): Promise<string> {
  if (isStreamingFlow(flow)) return metadata === undefined ? 'stale: never run' : 'streaming: processes input that arrived since its last run';
  if (flow.kind === 'once') return flowHasRun(metadata, flow) ? 'up to date (once flow already ran)' : 'stale: never run';
  if (target.kind !== 'materialized-view') return 'runs every time';
  const upstream = await upstreamOf(graph, flow, lookups);
  const staleness = stalenessOf(metadata, flow, flowDefinitionHash(flow, target), upstream);
  if (staleness.stale) return `stale: ${staleness.reason}`;
  const changing = Object.keys(upstream).find((name) => recomputed.has(nameKey(name)));
  return changing === undefined ? 'up to date' : `stale: upstream ${changing} will be recomputed first`;
}
