/**
 * A local warehouse (SQLite catalog, local files) and the FlowContext of one apply-changes flow
 * into `lake.<name>`, for driving the apply-changes sink batch by batch and reading the target
 * back through Thund's own scan.
 */
import type { Catalog, TableIdentifier } from '../../../../catalog/catalog.js';
import type { DuckDbSession } from '../../../../src/duckdb/session.js';
import type { FlowContext } from '../../../../src/engine/graph/flow-context.js';
import type { TableDataset } from '../../../../src/pipeline/ir/dataset.js';
import type { ApplyChanges, ApplyChangesFlow, Flow } from '../../../../src/pipeline/ir/flow.js';
import type { PipelineGraph } from '../../../../src/pipeline/ir/graph.js';
import { parsePartitionField } from '../../../../src/pipeline/ir/partition-field.js';
import { UNKNOWN_ORIGIN } from '../../../../src/pipeline/ir/origin.js';
import { openTableRows } from '../../../../src/table/table-rows.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../local-warehouse.js';
import { createTable, rowsOf, type Cell } from '../engine-test-helpers.js';

export type Warehouse = LocalWarehouse;

export const openWarehouse = (): Promise<Warehouse> => openLocalWarehouse({ prefix: 'cdc-sink' });

export interface CdcFlowSettings {
  readonly name: string;
  readonly changes: Partial<ApplyChanges> & Pick<ApplyChanges, 'keys' | 'sequenceBy'>;
  readonly properties?: Readonly<Record<string, string>>;
  readonly partitionedBy?: readonly string[];
  readonly fullRefresh?: boolean;
  /** Defaults to the warehouse's catalog (a test may wrap it to inject failures). */
  readonly catalog?: Catalog;
  readonly session?: DuckDbSession;
}

export const identifierOf = (name: string): TableIdentifier => ({ namespace: ['lake'], name });

export function cdcContext(warehouse: Warehouse, settings: CdcFlowSettings): FlowContext {
  const changes: ApplyChanges = { ignoreNullUpdates: false, storedAsScdType: 1, ...settings.changes };
  const flow: ApplyChangesFlow = {
    kind: 'apply-changes',
    name: `cdc_${settings.name}`,
    target: `lake.${settings.name}`,
    query: { language: 'sql', text: 'SELECT * FROM STREAM(changes)', origin: UNKNOWN_ORIGIN },
    outputMode: 'update',
    streaming: {},
    implicit: false,
    origin: UNKNOWN_ORIGIN,
    changes,
  };
  const target: TableDataset = {
    kind: 'streaming-table',
    name: `lake.${settings.name}`,
    origin: UNKNOWN_ORIGIN,
    expectations: [],
    table: {
      identifier: { namespace: ['lake'], name: settings.name },
      partitioning: (settings.partitionedBy ?? []).map((term) => parsePartitionField(term)!),
      properties: settings.properties ?? {},
    },
  };
  return {
    ...graphContext(warehouse, { name: 'cdc_test', datasets: [target], flows: [flow] }, flow, target),
    session: settings.session ?? warehouse.session,
    catalog: settings.catalog ?? warehouse.catalog,
    fullRefresh: settings.fullRefresh ?? false,
  };
}

/** The context of a flow of a pipeline graph (e.g. one read from a pipeline.yaml). */
export function graphContext(warehouse: Warehouse, graph: PipelineGraph, flow: Flow, target: TableDataset): FlowContext {
  return {
    session: warehouse.session,
    catalog: warehouse.catalog,
    io: warehouse.io,
    graph,
    flow,
    target,
    fullRefresh: false,
    summary: { 'thund.flow': flow.name },
    tempDir: warehouse.work,
    progress: () => undefined,
  };
}

/** A batch of change rows as DuckDB table `name`. */
export async function changeBatch(session: DuckDbSession, name: string, columns: string, rows: readonly (readonly Cell[])[]): Promise<string> {
  await createTable(session, name, columns, rows);
  return name;
}

/** The target's live rows through Thund's scan (deletes applied), ordered by `orderBy`. */
export async function scanTarget(warehouse: Warehouse, name: string, orderBy = 'ALL'): Promise<Cell[][]> {
  const { metadata } = await warehouse.catalog.loadTable(identifierOf(name));
  const rows = await openTableRows({ session: warehouse.session, io: warehouse.io, metadata });
  try {
    return await rowsOf(warehouse.session, `SELECT * FROM (${rows.sql}) ORDER BY ${orderBy}`);
  } finally {
    await rows.release();
  }
}
