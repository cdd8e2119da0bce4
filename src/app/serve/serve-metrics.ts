/**
 * The metric families `thund serve` exposes on /metrics, from the loop's totals, commit and batch
 * latencies, and per-partition lag (log end offset minus the table's committed position).
 */
import type { SourcePosition } from '../../../connectors/streaming-source.js';
import type { BatchReport, StreamingTotals } from '../../engine/graph/streaming/streaming-stats.js';
import { renderMetrics, SlidingSummary, type MetricFamily, type Sample } from './prometheus-text.js';

export interface PartitionEnd {
  readonly topic: string;
  readonly partition: number;
  readonly high: bigint;
}

export class ServeMetrics {
  private readonly commitSeconds = new SlidingSummary();
  private readonly batchSeconds = new SlidingSummary();
  private readonly outcomes: Record<string, number> = { committed: 0, covered: 0, stale: 0 };

  batch(report: BatchReport): void {
    if (report.outcome === 'empty') return;
    this.outcomes[report.outcome] = (this.outcomes[report.outcome] ?? 0) + 1;
    if (report.outcome === 'committed') this.commitSeconds.observe(report.commitMs / 1000);
    this.batchSeconds.observe(report.totalMs / 1000);
  }

  render(totals: StreamingTotals, committed: readonly SourcePosition[], ends: readonly PartitionEnd[], ready: boolean): string {
    const counter = (name: string, help: string, value: number): MetricFamily => ({ name, help, type: 'counter', samples: [{ value }] });
    const byPartition = new Map(committed.map((p) => [`${p.topic}/${p.partition}`, p.nextOffset]));
    const lag: Sample[] = [];
    const offsets: Sample[] = [];
    for (const end of ends) {
      const at = byPartition.get(`${end.topic}/${end.partition}`);
      if (at === undefined) continue;
      const labels = { topic: end.topic, partition: String(end.partition) };
      lag.push({ labels, value: Number(end.high > at ? end.high - at : 0n) });
      offsets.push({ labels, value: Number(at) });
    }
    return renderMetrics([
      counter('thund_serve_records_in_total', 'Kafka records consumed (decoded or dead-lettered)', totals.recordsIn),
      counter('thund_serve_records_out_total', 'Rows committed to the target table', totals.recordsOut),
      counter('thund_serve_dead_letters_total', 'Records sent to the dead-letter table', totals.deadLetters),
      counter('thund_serve_skipped_records_total', 'Records consumed without a row on purpose (tombstones)', totals.skipped),
      counter('thund_serve_files_written_total', 'Data files committed to the target table', totals.filesWritten),
      counter('thund_serve_bytes_written_total', 'Bytes of data files committed to the target table', totals.bytesWritten),
      counter('thund_serve_commits_total', 'Snapshots committed to the target table', totals.commits),
      counter('thund_serve_commit_conflicts_total', 'Commit attempts that lost a race and were retried', totals.conflicts),
      {
        name: 'thund_serve_batches_total',
        help: 'Batches by outcome (stale: the table moved under the batch, read again)',
        type: 'counter',
        samples: Object.entries(this.outcomes).map(([outcome, value]) => ({ labels: { outcome }, value })),
      },
      {
        name: 'thund_serve_ignored_columns_total',
        help: 'Batches in which the flow produced a column the table does not have',
        type: 'counter',
        samples: Object.entries(totals.ignoredColumns).map(([column, value]) => ({ labels: { column }, value })),
      },
      { name: 'thund_serve_commit_latency_seconds', help: 'Time from the start of a commit to its confirmation', type: 'summary', samples: this.commitSeconds.samples() },
      { name: 'thund_serve_batch_duration_seconds', help: 'Time from the first poll of a batch to its commit', type: 'summary', samples: this.batchSeconds.samples() },
      { name: 'thund_serve_consumer_lag', help: 'Records in the log beyond the table position, per owned partition', type: 'gauge', samples: lag },
      { name: 'thund_serve_committed_offset', help: 'Next offset per owned partition as the table records it', type: 'gauge', samples: offsets },
      { name: 'thund_serve_ready', help: '1 when the catalog answers and partitions are assigned', type: 'gauge', samples: [{ value: ready ? 1 : 0 }] },
    ]);
  }
}
