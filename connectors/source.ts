/**
 * What the engine needs from a source connector: make a declared source readable by flow SQL,
 * as a DuckDB view of the source's name. The app chooses the connector per source format.
 */
import type { DuckDbSession } from '../src/duckdb/session.js';
import type { SourceSpec } from '../src/pipeline/spec.js';

export interface SourceConnector {
  register(session: DuckDbSession, source: SourceSpec): Promise<void>;
}
