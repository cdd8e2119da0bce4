/**
 * What `thund serve pipeline.yaml` exposes on /metrics: the status report's counts (serve-status.ts
 * counts each flow's committed micro-batches and rows from the runs' events, the triggers, and per
 * source partition and flow the records read, dead letters and lag) as Prometheus families, and
 * the maintenance actions serve ran per table (serve-maintenance.ts), summed here.
 */
import { renderMetrics, type MetricFamily, type Sample } from './prometheus-text.js';
import type { MaintenanceRun } from './serve-maintenance.js';
import type { FlowStatus, ServeStatusReport, SourcePartitionStatus } from './serve-status.js';

interface MaintenanceTotals {
  ok: number;
  failed: number;
  /** The outcomes' counts (files, bytes, snapshots…) summed. */
  readonly items: Map<string, number>;
}

/** The parts of a status report /metrics renders. */
export type MetricsReport = Pick<ServeStatusReport, 'ready' | 'triggers' | 'flows' | 'sources'>;

export class PipelineMetrics {
  private readonly maintenance = new Map<string, { table: string; action: string; totals: MaintenanceTotals }>();

  maintenanceRun(run: MaintenanceRun): void {
    const key = `${run.table}\u0000${run.action}`;
    let entry = this.maintenance.get(key);
    if (entry === undefined) this.maintenance.set(key, (entry = { table: run.table, action: run.action, totals: { ok: 0, failed: 0, items: new Map() } }));
    if (run.error !== undefined) entry.totals.failed += 1;
    else entry.totals.ok += 1;
    for (const [item, value] of Object.entries(run.outcome?.counts ?? {})) entry.totals.items.set(item, (entry.totals.items.get(item) ?? 0) + value);
  }

  render(report: MetricsReport): string {
    const perFlow = (pick: (flow: FlowStatus) => number): Sample[] => report.flows.map((flow) => ({ labels: { flow: flow.name }, value: pick(flow) }));
    const labels = (p: SourcePartitionStatus): Record<string, string> => ({ source: p.source, flow: p.flow, topic: p.topic, partition: String(p.partition) });
    const families: MetricFamily[] = [
      { name: 'thund_ready', help: 'Whether the service can make progress (/readyz: catalog answers, a trigger completed, the last one did not fail).', type: 'gauge', samples: [{ value: report.ready ? 1 : 0 }] },
      { name: 'thund_triggers_total', help: 'Runs of the pipeline graph started by the trigger.', type: 'counter', samples: [{ value: report.triggers.total }] },
      { name: 'thund_trigger_failures_total', help: 'Runs of the pipeline graph that failed.', type: 'counter', samples: [{ value: report.triggers.failed }] },
      { name: 'thund_flow_commits_total', help: 'Micro-batches a flow committed.', type: 'counter', samples: perFlow((f) => f.commits) },
      { name: 'thund_flow_rows_read_total', help: 'Rows a flow read from its streamed inputs.', type: 'counter', samples: perFlow((f) => f.rowsRead) },
      { name: 'thund_flow_rows_written_total', help: 'Rows a flow wrote to its target.', type: 'counter', samples: perFlow((f) => f.rowsWritten) },
      { name: 'thund_flow_late_rows_total', help: 'Rows behind the watermark that a flow dropped after their window was final.', type: 'counter', samples: perFlow((f) => f.lateRows) },
      { name: 'thund_flow_expectation_failures_total', help: 'Rows that failed an expectation of a flow\'s target.', type: 'counter', samples: perFlow((f) => f.expectationFailures) },
      { name: 'thund_source_records_total', help: 'Records a flow read from a source partition.', type: 'counter', samples: report.sources.map((p) => ({ labels: labels(p), value: p.records })) },
      { name: 'thund_source_dead_letters_total', help: 'Records of a source partition sent to the dead-letter table.', type: 'counter', samples: report.sources.map((p) => ({ labels: labels(p), value: p.deadLetters })) },
      {
        name: 'thund_source_lag_records',
        help: 'Offsets between the end of a source partition (last seen) and where a flow\'s reading stands.',
        type: 'gauge',
        samples: report.sources.map((p) => ({ labels: labels(p), value: p.lag })),
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
}
