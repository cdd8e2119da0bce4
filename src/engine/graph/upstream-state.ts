/**
 * What a flow's result was computed from, as the `thund.upstream` record of its snapshot: each
 * table it reads with that table's current snapshot id, each Parquet source with a fingerprint of
 * the files it matches. A view stands for what it reads, so a flow over a view records the view's
 * inputs. Two equal records mean the flow would read exactly the same data.
 */
import { findDataset, flowsInto, nameKey, type PipelineGraph } from '../../pipeline/ir/graph.js';
import { isTableDataset, type SourceDataset, type TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';

/** Dataset name → snapshot id (tables; `none` before the first snapshot) or source fingerprint. */
export type UpstreamRecord = Readonly<Record<string, string>>;

export const NO_SNAPSHOT = 'none';
const FILES_PREFIX = 'files:';

export interface UpstreamLookups {
  tableSnapshot(dataset: TableDataset): Promise<bigint | undefined>;
  /** Undefined when the source's connector cannot tell (then the flow always counts as stale). */
  sourceFingerprint(dataset: SourceDataset): Promise<string | undefined>;
}

export async function upstreamOf(graph: PipelineGraph, flow: Flow, lookups: UpstreamLookups): Promise<UpstreamRecord> {
  const record: Record<string, string> = {};
  const visiting = new Set<string>();
  const visit = async (reader: Flow): Promise<void> => {
    for (const read of reader.dependencies?.reads ?? []) {
      const dataset = findDataset(graph, read.name);
      if (dataset === undefined || visiting.has(nameKey(dataset.name))) continue;
      visiting.add(nameKey(dataset.name));
      if (isTableDataset(dataset)) {
        const snapshot = await lookups.tableSnapshot(dataset);
        record[dataset.name] = snapshot === undefined ? NO_SNAPSHOT : snapshot.toString();
      } else if (dataset.kind === 'source') {
        const fingerprint = await lookups.sourceFingerprint(dataset);
        record[dataset.name] = fingerprint === undefined ? `unknown:${Date.now()}` : `${FILES_PREFIX}${fingerprint}`;
      } else if (dataset.kind === 'view' || dataset.kind === 'temporary-view') {
        for (const upstream of flowsInto(graph, dataset.name)) await visit(upstream);
      }
    }
  };
  await visit(flow);
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** Words for one upstream entry's change: `snapshot 1 → 2`, `files changed`, `first read`. */
export function describeUpstreamChange(before: string | undefined, after: string | undefined): string {
  if (before === undefined) return 'newly read';
  if (after === undefined) return 'no longer read';
  if (before.startsWith(FILES_PREFIX) || after.startsWith(FILES_PREFIX)) return 'files changed';
  return `snapshot ${before} → ${after}`;
}
