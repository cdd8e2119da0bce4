/**
 * `thund run <pipeline.yaml> [--full-refresh] [--backend native|spark]`: read and validate the pipeline (problems print as
 * `thund validate` prints them, and the run exits 1), then run it on the native backend into the
 * catalog its `catalog` block names (the embedded SQLite catalog by default). One line per flow:
 * what it wrote (or that it was up to date), its expectation counts and late rows, schema changes.
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import type { FlowRunSummary, RunEvent, RunResult } from '../../backend/run-event.js';
import type { Published } from '../../engine/graph/sink/sink-flow-context.js';
import type { FlowRunResult } from '../../engine/run-flow.js';
import { ThundError } from '../../errors.js';
import type { SchemaEvolutionChange } from '../../iceberg/schema-evolution.js';
import { typeText } from '../../iceberg/schema.js';
import { liveRowCountOf } from '../../table/live-row-count.js';
import { formatProblem } from '../../pipeline/problems.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import type { PipelineDefinition } from '../../pipeline/spec-to-ir.js';
import type { CatalogOverrides } from '../open-catalog.js';
import { nativeBackendFor } from '../native-run.js';
import { withPipelineResources } from '../pipeline-resources.js';
import type { RunBackend } from './usage.js';
import { analysePipelineFile } from './validate.js';

export interface RunCommandOptions extends CatalogOverrides {
  /** Run every flow, also those whose result is up to date. */
  readonly fullRefresh?: boolean;
  /** native (default): DuckDB in this process; spark: the lowered SDP project on Spark. */
  readonly backend?: RunBackend;
  /** With the spark backend: the Spark version to lower for (default 4.1). */
  readonly sparkVersion?: string;
}

/** Resolves to the exit code: 1 when the pipeline has problems; a failed run throws. */
export async function runCommand(
  specPath: string,
  options: RunCommandOptions,
  print: (line: string) => void,
  printError: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<number> {
  const analysed = await analysePipelineFile(specPath);
  if (analysed.problems.length > 0 || analysed.graph === undefined || analysed.definition === undefined) {
    for (const problem of analysed.problems) printError(formatProblem(problem));
    return 1;
  }
  if (options.backend === 'spark') return runOnSpark(analysed.definition, analysed.graph, options, print);
  const graph = analysed.graph;
  return withPipelineResources(analysed.definition, options, async (opened, sources) => {
    const written = new Map<string, FlowRunResult>();
    const published = new Map<string, Published>();
    const backend = nativeBackendFor(opened, sources, {
      onWrite: (flow, result) => written.set(flow.name, result),
      onPublish: (flow, result) => published.set(flow.name, result),
    });
    const handle = backend.run(graph, { fullRefresh: options.fullRefresh === true });
    const views = new Set(graph.datasets.filter((dataset) => dataset.kind === 'view' || dataset.kind === 'temporary-view').map((view) => view.name));
    const liveRows = new Map<string, bigint>();
    for await (const event of handle.events) {
      const result = event.phase === 'flow-completed' ? written.get(event.flow) : undefined;
      if (result !== undefined) liveRows.set(result.flowName, await liveRowCountOf(result.table.io, result.table.metadata));
      for (const line of describeEvent(event, { written, published, liveRows }, views)) print(line);
    }
    await throwIfFailed(handle.result);
    print(opened.description);
    return 0;
  });
}

/**
 * Spark (from THUND_SPARK_PIPELINES_PYTHON / _JARS / THUND_SPARK_REMOTE) runs the lowered project of
 * `graph` (dependencies inferred); it refuses, element by element, what only the native engine runs.
 */
async function runOnSpark(definition: PipelineDefinition, graph: PipelineGraph, options: RunCommandOptions, print: (line: string) => void): Promise<number> {
  const { defaultSparkProjectDir, sparkBackendFor } = await import('../../sdp/spark-backend-for.js');
  const backend = sparkBackendFor(definition, {
    ...(options.sparkVersion === undefined ? {} : { sparkVersion: options.sparkVersion }),
    ...(options.warehouse === undefined ? {} : { warehouse: options.warehouse }),
    ...(options.catalogName === undefined ? {} : { catalogName: options.catalogName }),
  });
  const handle = backend.run(graph, { fullRefresh: options.fullRefresh === true });
  for await (const event of handle.events) if (event.phase === 'flow-completed') print(describeFlow(event));
  await throwIfFailed(handle.result);
  print(`ran on Spark (project ${defaultSparkProjectDir(definition)})`);
  return 0;
}

async function throwIfFailed(outcome: Promise<RunResult>): Promise<void> {
  const result = await outcome;
  if (result.status !== 'failed') return;
  const error = result.error ?? { code: 'RUN_FAILED', message: 'the run failed', retryable: false };
  throw new ThundError(error.code, error.message, { retryable: error.retryable });
}

interface FlowResults {
  readonly written: ReadonlyMap<string, FlowRunResult>;
  readonly published: ReadonlyMap<string, Published>;
  /** The written tables' live rows (position deletes applied), as `thund inspect` counts them. */
  readonly liveRows: ReadonlyMap<string, bigint>;
}

function describeEvent(event: RunEvent, results: FlowResults, views: ReadonlySet<string>): string[] {
  if (event.phase !== 'flow-completed') return [];
  const result = results.written.get(event.flow);
  const sent = results.published.get(event.flow);
  const lines = [
    result !== undefined
      ? describeWrite(event.flow, result, results.liveRows.get(event.flow))
      : sent !== undefined
        ? `flow ${event.flow}: published ${sent.records} records to Kafka topic ${sent.topic} (sink ${sent.sink})`
        : views.has(event.target)
          ? `flow ${event.flow}: view ${event.target} defined`
          : describeFlow(event),
  ];
  for (const count of event.counts.expectations) {
    lines.push(`  expectation ${count.expectation} (${count.action}): ${count.passed} passed, ${count.failed} failed${count.action === 'drop' && count.failed > 0 ? ' (dropped)' : ''}`);
  }
  if (event.counts.lateRows > 0) lines.push(`  late rows: ${event.counts.lateRows} (behind the watermark, left out)`);
  if (result !== undefined) {
    // Shown so a misspelt column in the flow's SQL is noticed: it would otherwise become a new column.
    for (const change of result.schemaChanges) lines.push(`  schema: ${describeChange(change)}`);
    if (result.absentColumns.length > 0) lines.push(`  schema: no value for ${result.absentColumns.join(', ')} (written as null)`);
  }
  return lines;
}

function describeWrite(flow: string, result: FlowRunResult, liveRows: bigint | undefined): string {
  const summary = result.snapshot.summary;
  return (
    `flow ${flow}: ${result.created ? 'created' : 'updated'} ${formatIdentifier(result.table.identifier)} — ` +
    `${summary.operation} snapshot ${result.snapshot.snapshotId}, ${summary['added-records'] ?? '0'} rows in ` +
    `${result.dataFiles.length} data file(s); table now has ${liveRows ?? '?'} rows`
  );
}

function describeFlow(flow: FlowRunSummary): string {
  const at = flow.snapshotId === undefined ? '' : ` (snapshot ${flow.snapshotId})`;
  if (flow.skipped === 'up-to-date') return `flow ${flow.flow}: ${flow.target} is up to date${at}`;
  if (flow.skipped === 'once-done') return `flow ${flow.flow}: once flow already ran into ${flow.target}${at}; skipped`;
  if (flow.skipped === 'upstream-empty') return `flow ${flow.flow}: skipped, a table it reads has no data yet`;
  return `flow ${flow.flow}: ${flow.target} — ${flow.counts.rowsRead} rows read, ${flow.counts.rowsWritten} rows written${at}`;
}

function describeChange(change: SchemaEvolutionChange): string {
  const column = change.path.join('.');
  return change.kind === 'add-column'
    ? `added column ${column} ${typeText(change.type)} (field id ${change.fieldId})`
    : `widened ${column} from ${typeText(change.from)} to ${typeText(change.to)}`;
}
