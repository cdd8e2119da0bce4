/**
 * Whether a batch flow into a table is skipped, from its target's metadata and its upstream record
 * alone: a table it reads has no snapshot yet, a once flow already ran, or a materialized view is
 * up to date. Nothing here needs DuckDB, so a run decides its leading skips before opening it.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { FlowSkip } from '../run-events.js';
import { NoSuchTableError } from '../../errors.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import type { TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import { nameKey } from '../../pipeline/ir/graph.js';
import { flowDefinitionHash } from './definition-hash.js';
import { isStreamingFlow } from './flow-dispatch.js';
import { flowHasRun, stalenessOf } from './staleness.js';
import { NO_SNAPSHOT, type UpstreamRecord } from './upstream-state.js';

/** Why `flow` into `target` is skipped, or undefined when it runs. */
export function flowSkip(flow: Flow, target: TableDataset, metadata: TableMetadata | undefined, upstream: UpstreamRecord, fullRefresh: boolean): FlowSkip | undefined {
  if (isStreamingFlow(flow)) return undefined;
  // A table of the pipeline that no flow has landed anything in yet (a stream with no input so
  // far) cannot be read: the flows over it wait for it instead of failing the run.
  if (Object.values(upstream).includes(NO_SNAPSHOT)) return 'upstream-empty';
  if (fullRefresh) return undefined;
  if (flow.kind === 'once') return flowHasRun(metadata, flow) ? 'once-done' : undefined;
  if (target.kind === 'materialized-view' && !stalenessOf(metadata, flow, flowDefinitionHash(flow, target), upstream).stale) return 'up-to-date';
  return undefined;
}

/** Each table's current metadata from the catalog, loaded once (undefined while the table does not exist). */
export function catalogMetadata(catalog: Pick<Catalog, 'loadTable'>): (dataset: TableDataset) => Promise<TableMetadata | undefined> {
  const tables = new Map<string, Promise<TableMetadata | undefined>>();
  return (dataset) => {
    let found = tables.get(nameKey(dataset.name));
    if (found === undefined) {
      found = catalog.loadTable(dataset.table.identifier).then(
        (loaded) => loaded.metadata,
        (error: unknown) => {
          if (error instanceof NoSuchTableError) return undefined;
          throw error;
        },
      );
      tables.set(nameKey(dataset.name), found);
    }
    return found;
  };
}
