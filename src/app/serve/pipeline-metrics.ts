/**
 * What `thund serve pipeline.yaml` exposes on /metrics: per flow the micro-batches committed and
 * the rows read, written and late (counted from the runs' flow-progress events), per source
 * partition and flow the records read, dead letters and lag (the end offset last seen minus where
 * the flow's reading stands), and the triggers run and failed.
 */
import type { RunEvent } from '../../backend/run-event.js';
import { renderMetrics, type MetricFamily, type Sample } from './prometheus-text.js';
import type { PartitionProgress } from './served-streams.js';

interface FlowTotals {
  commits: number;
  rowsRead: number;
  rowsWritten: number;
  lateRows: number;
  expectationFailures: number;
}

export class PipelineMetrics {
  private readonly flows = new Map<string, FlowTotals>();
  private triggers = 0;
  private failedTriggers = 0;

  /** Counts what a run reports; a flow's progress event is one committed micro-batch. */
  event(event: RunEvent): void {
    if (event.phase === 'flow-started') this.totalsOf(event.flow);
    if (event.phase !== 'flow-progress') return;
    const totals = this.totalsOf(event.flow);
    totals.commits += 1;
    totals.rowsRead += event.counts.rowsRead;
    totals.rowsWritten += event.counts.rowsWritten;
    totals.lateRows += event.counts.lateRows;
    totals.expectationFailures += event.counts.expectations.reduce((sum, e) => sum + e.failed, 0);
  }

  trigger(failed: boolean): void {
    this.triggers += 1;
    if (failed) this.failedTriggers += 1;
  }

  render(partitions: readonly PartitionProgress[], ready: boolean): string {
    const perFlow = (pick: (t: FlowTotals) => number): Sample[] => [...this.flows].map(([flow, totals]) => ({ labels: { flow }, value: pick(totals) }));
    const labels = (p: PartitionProgress): Record<string, string> => ({ source: p.source, flow: p.reader, topic: p.topic, partition: String(p.partition) });
    const families: MetricFamily[] = [
      { name: 'thund_ready', help: 'Whether the service is ready (catalog reachable, first trigger done).', type: 'gauge', samples: [{ value: ready ? 1 : 0 }] },
      { name: 'thund_triggers_total', help: 'Runs of the pipeline graph started by the trigger.', type: 'counter', samples: [{ value: this.triggers }] },
      { name: 'thund_trigger_failures_total', help: 'Runs of the pipeline graph that failed.', type: 'counter', samples: [{ value: this.failedTriggers }] },
      { name: 'thund_flow_commits_total', help: 'Micro-batches a flow committed.', type: 'counter', samples: perFlow((t) => t.commits) },
      { name: 'thund_flow_rows_read_total', help: 'Rows a flow read from its streamed inputs.', type: 'counter', samples: perFlow((t) => t.rowsRead) },
      { name: 'thund_flow_rows_written_total', help: 'Rows a flow wrote to its target.', type: 'counter', samples: perFlow((t) => t.rowsWritten) },
      { name: 'thund_flow_late_rows_total', help: 'Rows behind the watermark that a flow dropped after their window was final.', type: 'counter', samples: perFlow((t) => t.lateRows) },
      { name: 'thund_flow_expectation_failures_total', help: 'Rows that failed an expectation of a flow\'s target.', type: 'counter', samples: perFlow((t) => t.expectationFailures) },
      { name: 'thund_source_records_total', help: 'Records a flow read from a source partition.', type: 'counter', samples: partitions.map((p) => ({ labels: labels(p), value: p.records })) },
      { name: 'thund_source_dead_letters_total', help: 'Records of a source partition sent to the dead-letter table.', type: 'counter', samples: partitions.map((p) => ({ labels: labels(p), value: p.deadLetters })) },
      {
        name: 'thund_source_lag_records',
        help: 'Offsets between the end of a source partition (last seen) and where a flow\'s reading stands.',
        type: 'gauge',
        samples: partitions.map((p) => ({ labels: labels(p), value: Number(p.reached === undefined ? p.high : p.high > p.reached ? p.high - p.reached : 0n) })),
      },
    ];
    return renderMetrics(families);
  }

  private totalsOf(flow: string): FlowTotals {
    let totals = this.flows.get(flow);
    if (totals === undefined) this.flows.set(flow, (totals = { commits: 0, rowsRead: 0, rowsWritten: 0, lateRows: 0, expectationFailures: 0 }));
    return totals;
  }
}
