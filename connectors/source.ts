/**
 * What the engine needs from a source connector: make a declared source readable by flow SQL,
 * as a DuckDB view of the source's name, and say what it would read, so a run can tell whether
 * a flow's input changed since it last ran. The app chooses the connector per source format.
 */
import type { DuckDbSession } from '../src/duckdb/session.js';
import type { SourceDataset } from '../src/pipeline/ir/dataset.js';

export interface SourceConnector {
  register(session: DuckDbSession, source: SourceDataset): Promise<void>;
  /**
   * A short text that changes whenever the data the source would read changes (for Parquet: the
   * matched files' names, sizes and modification times). Absent when the connector cannot tell.
   */
  fingerprint?(session: DuckDbSession, source: SourceDataset): Promise<string>;
}
