/**
 * The pipeline's tables as DuckDB relations, so flow SQL reads `lake.orders` directly: one view
 * `"lake"."orders"` per existing table over its current snapshot (Thund's own scan, deletes
 * applied), re-pointed after every commit so later flows see the new rows.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { NoSuchTableError } from '../../errors.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { isTableDataset, type TableDataset } from '../../pipeline/ir/dataset.js';
import { nameKey, type PipelineGraph } from '../../pipeline/ir/graph.js';
import { openTableRows } from '../../table/table-rows.js';

interface Pointed {
  readonly metadata: TableMetadata;
  release(): Promise<void>;
}

export class TableRelations {
  private readonly pointed = new Map<string, Pointed>();
  private readonly schemas = new Set<string>();
  /** Datasets some flow reads: only these become DuckDB views. */
  private readonly read = new Set<string>();

  constructor(
    private readonly session: DuckDbSession,
    private readonly catalog: Catalog,
  ) {}

  /**
   * Loads every table dataset of the graph that exists in the catalog, and registers those some
   * flow reads (a table's rows may be staged locally to be read, so unread tables are not).
   */
  async registerExisting(graph: PipelineGraph): Promise<void> {
    for (const flow of graph.flows) for (const read of flow.dependencies?.reads ?? []) this.read.add(nameKey(read.name));
    for (const dataset of graph.datasets) if (isTableDataset(dataset)) await this.refresh(dataset);
  }

  /** (Re-)points the relation of `dataset` at its table's current snapshot; a missing table is left out. */
  async refresh(dataset: TableDataset): Promise<void> {
    let loaded;
    try {
      loaded = await this.catalog.loadTable(dataset.table.identifier);
    } catch (error) {
      if (error instanceof NoSuchTableError) return;
      throw error;
    }
    const key = nameKey(dataset.name);
    if (!this.read.has(key)) {
      this.pointed.set(key, { metadata: loaded.metadata, release: async () => {} });
      return;
    }
    const rows = await openTableRows({ session: this.session, io: loaded.io, metadata: loaded.metadata });
    try {
      const schema = await this.ensureSchema(dataset.table.identifier.namespace);
      // A multi-level namespace has no DuckDB schema of that shape: such tables are not readable by name.
      if (schema !== undefined) await this.session.run(`CREATE OR REPLACE VIEW ${schema}.${quoteIdentifier(dataset.table.identifier.name)} AS ${rows.sql}`);
    } catch (error) {
      await rows.release();
      throw error;
    }
    await this.pointed.get(key)?.release();
    this.pointed.set(key, { metadata: loaded.metadata, release: rows.release });
  }

  /** The table's metadata as last pointed at (undefined when it does not exist yet). */
  metadataOf(dataset: TableDataset): TableMetadata | undefined {
    return this.pointed.get(nameKey(dataset.name))?.metadata;
  }

  snapshotOf(dataset: TableDataset): bigint | undefined {
    return this.metadataOf(dataset)?.currentSnapshotId;
  }

  async close(): Promise<void> {
    for (const pointed of this.pointed.values()) await pointed.release().catch(() => undefined);
    this.pointed.clear();
  }

  private async ensureSchema(namespace: readonly string[]): Promise<string | undefined> {
    if (namespace.length !== 1) return undefined;
    const schema = quoteIdentifier(namespace[0] as string);
    if (!this.schemas.has(schema)) {
      await this.session.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      this.schemas.add(schema);
    }
    return schema;
  }
}
