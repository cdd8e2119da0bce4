/**
 * What `thund serve` is doing, for an operator: GET /status (JSON) and the page at GET /
 * (status-page.ts). Built from what the service already sees — the runs' events, the triggers'
 * results, its offset streams (lag, dead letters and their reasons), the table metadata that
 * maintenance loads between triggers and the maintenance runs — so answering asks nothing of
 * Kafka, the catalog or storage.
 */
import type { RunEvent, RunResult } from '../../backend/run-event.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import type { ReadinessState } from './readiness.js';
import type { MaintenanceRun } from './serve-maintenance.js';
import type { DeadLetterNote, PartitionProgress } from './served-streams.js';

/** waiting: not run yet; running: in the trigger under way; idle: its last run completed; failed: its last run failed. */
export type FlowState = 'waiting' | 'running' | 'idle' | 'failed';

export interface FlowStatus {
  readonly name: string;
  readonly target: string;
  /** The datasets its query reads (`stream` through STREAM()). */
  readonly reads: readonly { readonly name: string; readonly stream: boolean }[];
  readonly state: FlowState;
  readonly commits: number;
  readonly rowsRead: number;
  readonly rowsWritten: number;
  readonly lateRows: number;
  /** Rows that failed an expectation of its target. */
  readonly expectationFailures: number;
  readonly lastCommit: { readonly at: string; readonly snapshotId: string | null; readonly rowsRead: number; readonly rowsWritten: number } | null;
  readonly lastError: { readonly at: string; readonly code: string; readonly message: string } | null;
}

export interface SourcePartitionStatus {
  readonly source: string;
  readonly flow: string;
  readonly topic: string;
  readonly partition: number;
  /** The partition's end offset when last asked. */
  readonly endOffset: string;
  /** The flow's next offset to read; null before its first round. */
  readonly position: string | null;
  readonly lag: number;
  readonly records: number;
  readonly deadLetters: number;
}

export interface TableStatus {
  readonly table: string;
  readonly snapshots: number;
  readonly currentSnapshotId: string | null;
  readonly lastCommitAt: string | null;
  readonly dataFiles: number | null;
  readonly deleteFiles: number | null;
  readonly records: number | null;
  readonly lastMaintenance: { readonly action: string; readonly at: string; readonly outcome: 'ok' | 'failed'; readonly detail: string } | null;
}

export interface ServeStatusReport {
  readonly pipeline: string;
  readonly startedAt: string;
  readonly now: string;
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
  /** Why it is not ready (readiness.ts): catalog, assigning, kafka, storage, failing. */
  readonly reasons: readonly string[];
  readonly triggers: { readonly total: number; readonly failed: number; readonly last: { readonly at: string; readonly status: string; readonly error: string | null } | null };
  readonly flows: readonly FlowStatus[];
  readonly sources: readonly SourcePartitionStatus[];
  readonly deadLetters: {
    readonly total: number;
    readonly recent: readonly { readonly source: string; readonly topic: string; readonly partition: number; readonly offset: string; readonly code: string; readonly reason: string; readonly at: string }[];
  };
  readonly tables: readonly TableStatus[];
}

/** What a stream reader has left to read in a partition: end offset last seen minus its position. */
export function lagOf(p: PartitionProgress): number {
  return Number(p.reached === undefined ? p.high : p.high > p.reached ? p.high - p.reached : 0n);
}

const iso = (ms: number | bigint): string => new Date(Number(ms)).toISOString();
const count = (summary: Readonly<Record<string, string>> | undefined, key: string): number | null => (summary?.[key] === undefined ? null : Number(summary[key]));

const byPartition = (a: PartitionProgress, b: PartitionProgress): number =>
  a.source.localeCompare(b.source) || a.reader.localeCompare(b.reader) || a.topic.localeCompare(b.topic) || a.partition - b.partition;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class ServeStatus {
  private readonly startedAt = Date.now();
  private readonly flows = new Map<string, Mutable<FlowStatus>>();
  private readonly tables = new Map<string, Mutable<TableStatus>>();
  private triggers: Mutable<ServeStatusReport['triggers']> = { total: 0, failed: 0, last: null };

  constructor(private readonly graph: PipelineGraph, tables: readonly string[]) {
    for (const flow of graph.flows) {
      this.flows.set(flow.name, {
        name: flow.name,
        target: flow.target,
        reads: (flow.dependencies?.reads ?? []).map((read) => ({ name: read.name, stream: read.streaming })),
        state: 'waiting',
        commits: 0,
        rowsRead: 0,
        rowsWritten: 0,
        lateRows: 0,
        expectationFailures: 0,
        lastCommit: null,
        lastError: null,
      });
    }
    for (const table of tables) {
      this.tables.set(table, { table, snapshots: 0, currentSnapshotId: null, lastCommitAt: null, dataFiles: null, deleteFiles: null, records: null, lastMaintenance: null });
    }
  }

  event(event: RunEvent): void {
    if (event.phase === 'failed') {
      const flow = event.flow === undefined ? undefined : this.flows.get(event.flow);
      if (flow !== undefined) Object.assign(flow, { state: 'failed', lastError: { at: iso(event.at), code: event.error.code, message: event.error.message } });
      return;
    }
    if (event.phase !== 'flow-started' && event.phase !== 'flow-progress' && event.phase !== 'flow-completed') return;
    const flow = this.flows.get(event.flow);
    if (flow === undefined) return;
    if (event.phase === 'flow-started') flow.state = 'running';
    else if (event.phase === 'flow-completed') flow.state = 'idle';
    else {
      const { rowsRead, rowsWritten, lateRows } = event.counts;
      flow.commits += 1;
      flow.rowsRead += rowsRead;
      flow.rowsWritten += rowsWritten;
      flow.lateRows += lateRows;
      flow.expectationFailures += event.counts.expectations.reduce((sum, e) => sum + e.failed, 0);
      flow.lastCommit = { at: iso(event.at), snapshotId: event.snapshotId === undefined ? null : String(event.snapshotId), rowsRead, rowsWritten };
    }
  }

  trigger(result: RunResult): void {
    this.triggers.total += 1;
    if (result.status === 'failed') this.triggers.failed += 1;
    this.triggers.last = { at: iso(Date.now()), status: result.status, error: result.error === undefined ? null : `${result.error.code}: ${result.error.message}` };
  }

  /** A table's metadata as last loaded (maintenance loads every table between triggers). */
  table(table: string, metadata: TableMetadata): void {
    const status = this.tables.get(table);
    if (status === undefined) return;
    const current = metadata.snapshots.find((snapshot) => snapshot.snapshotId === metadata.currentSnapshotId);
    Object.assign(status, {
      snapshots: metadata.snapshots.length,
      currentSnapshotId: current === undefined ? null : String(current.snapshotId),
      lastCommitAt: current === undefined ? null : iso(current.timestampMs),
      dataFiles: count(current?.summary, 'total-data-files'),
      deleteFiles: count(current?.summary, 'total-delete-files'),
      records: count(current?.summary, 'total-records'),
    });
  }

  maintenanceRun(run: MaintenanceRun): void {
    const status = this.tables.get(run.table);
    if (status === undefined) return;
    status.lastMaintenance = {
      action: run.action,
      at: iso(Date.now()),
      outcome: run.error === undefined ? 'ok' : 'failed',
      detail: run.error === undefined ? (run.outcome?.summary ?? '') : `${run.error.code}: ${run.error.message}`,
    };
  }

  report(partitions: readonly PartitionProgress[], deadLetters: readonly DeadLetterNote[], ready: Pick<ReadinessState, 'ready' | 'checks' | 'reasons'>): ServeStatusReport {
    return {
      pipeline: this.graph.name,
      startedAt: iso(this.startedAt),
      now: iso(Date.now()),
      ready: ready.ready,
      checks: ready.checks,
      reasons: ready.reasons,
      triggers: { ...this.triggers },
      flows: [...this.flows.values()].map((flow) => ({ ...flow })),
      sources: [...partitions].sort(byPartition).map((p) => ({
        source: p.source,
        flow: p.reader,
        topic: p.topic,
        partition: p.partition,
        endOffset: String(p.high),
        position: p.reached === undefined ? null : String(p.reached),
        lag: lagOf(p),
        records: p.records,
        deadLetters: p.deadLetters,
      })),
      deadLetters: {
        total: partitions.reduce((sum, p) => sum + p.deadLetters, 0),
        recent: deadLetters.map((note) => ({
          source: note.source,
          topic: note.topic,
          partition: note.partition,
          offset: String(note.offset),
          code: note.code,
          reason: note.reason,
          at: iso(note.seenAt),
        })),
      },
      tables: [...this.tables.values()].map((table) => ({ ...table })),
    };
  }
}
