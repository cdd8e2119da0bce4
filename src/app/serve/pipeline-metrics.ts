/**
 * What `thund serve pipeline.yaml` exposes on /metrics: per flow the micro-batches committed and
 * the rows read, written and late (counted from the runs' flow-progress events), per source
 * partition and flow the records read, dead letters and lag (the end offset last seen minus where
 * the flow's reading stands), the triggers run and failed, and the maintenance actions serve ran
 * per table (serve-maintenance.ts).
 */
import type { RunEvent } from '../../backend/run-event.js';
import { renderMetrics, type MetricFamily, type Sample } from './prometheus-text.js';
import type { MaintenanceRun } from './serve-maintenance.js';
import type { PartitionProgress } from './served-streams.js';
import { lagOf } from './serve-status.js';

interface FlowTotals {
  commits: number;
  rowsRead: number;
  rowsWritten: number;
  lateRows: number;
  expectationFailures: number;
}

interface MaintenanceTotals {
  ok: number;
  failed: number;
  /** The outcomes' counts (files, bytes, snapshots…) summed. */
  readonly items: Map<string, number>;
}

export class PipelineMetrics {
  private readonly flows = new Map<string, FlowTotals>();
  private readonly maintenance = new Map<string, { table: string; action: string; totals: MaintenanceTotals }>();
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

  maintenanceRun(run: MaintenanceRun): void {
    const key = `${run.table}\u0000${run.action}`;
    let entry = this.maintenance.get(key);
    if (entry === undefined) this.maintenance.set(key, (entry = { table: run.table, action: run.action, totals: { ok: 0, failed: 0, items: new Map() } }));
    if (run.error !== undefined) entry.totals.failed += 1;
    else entry.totals.ok += 1;
    for (const [item, value] of Object.entries(run.outcome?.counts ?? {})) entry.totals.items.set(item, (entry.totals.items.get(item) ?? 0) + value);
  }

  render(partitions: readonly PartitionProgress[], ready: boolean): string {
    const perFlow = (pick: (t: FlowTotals) => number): Sample[] => [...this.flows].map(([flow, totals]) => ({ labels: { flow }, value: pick(totals) }));
    const labels = (p: PartitionProgress): Record<string, string> => ({ source: p.source, flow: p.reader, topic: p.topic, partition: String(p.partition) });
    const families: MetricFamily[] = [
      { name: 'thund_ready', help: 'Whether the service can make progress (/readyz: catalog answers, a trigger completed, the last one did not fail).', type: 'gauge', samples: [{ value: ready ? 1 : 0 }] },
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
        samples: partitions.map((p) => ({ labels: labels(p), value: lagOf(p) })),
      },
      {
        name: 'thund_maintenance_runs_total',
        help: 'Maintenance actions serve ran on a table, by outcome.',
        type: 'counter',
        samples: [...this.maintenance.values()].flatMap(({ table, action, totals }) => [
          { labels: { table, action, outcome: 'ok' }, value: totals.ok },
          { labels: { table, action, outcome: 'failed' }, value: totals.failed },
        ]),
      },
      {
        name: 'thund_maintenance_items_total',
        help: 'What maintenance actions changed (files rewritten, snapshots expired, orphans deleted…), summed.',
        type: 'counter',
        samples: [...this.maintenance.values()].flatMap(({ table, action, totals }) => [...totals.items].map(([item, value]) => ({ labels: { table, action, item }, value }))),
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
