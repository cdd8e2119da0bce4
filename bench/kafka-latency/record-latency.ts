/**
 * Per-record latency from the snapshots a SnapshotWatch saw: the data files each append snapshot
 * added (its manifests' ADDED entries of that snapshot), read by DuckDB in place (an embedded
 * catalog's files are local), each row's latency being its snapshot's first-seen time (and, as a
 * second figure, its `timestamp-ms`) minus the `produced_ms` its value carries. Also checks that
 * every record landed exactly once: as many rows as distinct (partition, offset) pairs and ids.
 */
import type { TableIdentifier } from '../../catalog/catalog.js';
import { fromFileUri } from '../../connectors/storage/local-file-io.js';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { DataFileContent, ManifestContent, ManifestEntryStatus } from '../../src/iceberg/data-file.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { liveEntriesOf, manifestsOf } from '../../src/table/scan.js';
import type { SeenSnapshot } from './snapshot-watch.js';

export interface LatencyFigures {
  readonly rows: number;
  readonly distinctOffsets: number;
  readonly distinctIds: number;
  readonly appendSnapshots: number;
  readonly dataFiles: number;
  /** Latency to the first poll that saw the record's snapshot, ms. */
  readonly seen: Percentiles;
  /** Latency to the snapshot's timestamp-ms, ms. */
  readonly committed: Percentiles;
}

export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export async function recordLatency(pipelinePath: string, identifier: TableIdentifier, seen: ReadonlyMap<bigint, SeenSnapshot>): Promise<LatencyFigures> {
  const files = await addedDataFiles(pipelinePath, identifier, seen);
  const session = await DuckDbSession.open({ threads: 2, memoryLimit: '1GB' });
  try {
    const values = files.map((f) => `(${quoteLiteral(f.path)}, ${f.snapshot.firstSeenMs}, ${f.snapshot.timestampMs})`).join(', ');
    await session.run(`CREATE TABLE added(path VARCHAR, first_seen_ms BIGINT, commit_ms BIGINT)`);
    if (files.length > 0) await session.run(`INSERT INTO added VALUES ${values}`);
    const source = files.length === 0 ? '(SELECT NULL::VARCHAR AS filename, NULL::BIGINT AS produced_ms, NULL::BIGINT AS id, NULL::INT AS _kafka_partition, NULL::BIGINT AS _kafka_offset WHERE false)' : `read_parquet([${files.map((f) => quoteLiteral(f.path)).join(', ')}], filename = true)`;
    await session.run(
      `CREATE TABLE latency AS SELECT r.id, r._kafka_partition AS part, r._kafka_offset AS off, a.first_seen_ms - r.produced_ms AS seen, a.commit_ms - r.produced_ms AS committed
       FROM ${source} r JOIN added a ON r.filename = a.path`,
    );
    const [row] = await session.queryJson(
      `SELECT count(*) AS n, count(DISTINCT (part, off)) AS offsets, count(DISTINCT id) AS ids,
         quantile_disc(seen, [0.5, 0.9, 0.99]) AS seen_q, max(seen) AS seen_max,
         quantile_disc(committed, [0.5, 0.9, 0.99]) AS committed_q, max(committed) AS committed_max
       FROM latency`,
    );
    const r = row ?? {};
    return {
      rows: Number(r['n']),
      distinctOffsets: Number(r['offsets']),
      distinctIds: Number(r['ids']),
      appendSnapshots: new Set(files.map((f) => f.snapshot.snapshotId)).size,
      dataFiles: files.length,
      seen: percentiles(r['seen_q'], r['seen_max']),
      committed: percentiles(r['committed_q'], r['committed_max']),
    };
  } finally {
    session.close();
  }
}

/** Every data file an append snapshot the watch saw added, with that snapshot. */
async function addedDataFiles(pipelinePath: string, identifier: TableIdentifier, seen: ReadonlyMap<bigint, SeenSnapshot>): Promise<Array<{ path: string; snapshot: SeenSnapshot }>> {
  const opened = await openCatalog(await loadConnectionFile(pipelinePath));
  try {
    const { metadata, io } = await opened.catalog.loadTable(identifier);
    const files: Array<{ path: string; snapshot: SeenSnapshot }> = [];
    for (const snapshot of metadata.snapshots) {
      const watched = seen.get(snapshot.snapshotId);
      if (watched === undefined) throw new Error(`snapshot ${snapshot.snapshotId} was never seen by the watch`);
      if (snapshot.summary.operation !== 'append') continue;
      for (const manifest of await manifestsOf(io, snapshot)) {
        if (manifest.content !== ManifestContent.Data || manifest.addedSnapshotId !== snapshot.snapshotId) continue;
        for (const entry of await liveEntriesOf(io, manifest)) {
          if (entry.status !== ManifestEntryStatus.Added || entry.dataFile.content !== DataFileContent.Data) continue;
          files.push({ path: fromFileUri(entry.dataFile.filePath), snapshot: watched });
        }
      }
    }
    return files;
  } finally {
    await opened.close();
  }
}

function percentiles(quantiles: unknown, max: unknown): Percentiles {
  const [p50, p90, p99] = (quantiles as unknown[] | null ?? []).map(Number);
  return { p50: p50 ?? NaN, p90: p90 ?? NaN, p99: p99 ?? NaN, max: Number(max) };
}
