/**
 * Graph validations, run in a fixed order and all reported at once, each with a stable code
 * (problems.ts) and the origin of the element at fault. Checks that need a flow's reads use the
 * dependencies inferred from its SQL (infer-dependencies.ts) and are skipped for flows without.
 */
import { findColumn, isOrderable, isTemporal, type DeclaredSchema } from './ir/column-types.js';
import { datasetExpectations, describeDataset, isStreamableKind, isTableDataset, kindWords, type Dataset } from './ir/dataset.js';
import type { Flow } from './ir/flow.js';
import { findDataset, flowsInto, nameKey, type PipelineGraph } from './ir/graph.js';
import type { Origin } from './ir/origin.js';
import { transformAccepts } from './ir/partition-field.js';
import { datasetEdges } from './dependency-edges.js';
import { PROBLEM_CODES, sortProblems, type PipelineProblem, type ProblemCode } from './problems.js';
import { didYouMean } from './suggest.js';

type Report = (code: ProblemCode, origin: Origin, message: string) => void;

export function validate(graph: PipelineGraph): PipelineProblem[] {
  const problems: PipelineProblem[] = [];
  const report: Report = (code, origin, message) => problems.push({ code, origin, message });
  checkDuplicates(graph, report);
  checkTargets(graph, report);
  checkReads(graph, report);
  checkFlowCounts(graph, report);
  checkApplyChanges(graph, report);
  checkStreaming(graph, report);
  checkKeys(graph, report);
  checkColumns(graph, report);
  checkCycles(graph, report);
  return sortProblems(problems);
}

function checkDuplicates(graph: PipelineGraph, report: Report): void {
  const firstOf = <T extends { name: string; origin: Origin }>(items: readonly T[], what: (item: T) => string): void => {
    const seen = new Map<string, T>();
    for (const item of items) {
      const earlier = seen.get(nameKey(item.name));
      if (earlier === undefined) seen.set(nameKey(item.name), item);
      else report(PROBLEM_CODES.DUPLICATE_NAME, item.origin, `${what(item)} "${item.name}" is already declared as "${earlier.name}" (names ignore case)`);
    }
  };
  firstOf(graph.datasets, (dataset) => kindWords(dataset.kind));
  firstOf(graph.flows, () => 'flow');
  for (const dataset of graph.datasets) firstOf(datasetExpectations(dataset), () => `expectation of ${dataset.name}`);
}

function checkTargets(graph: PipelineGraph, report: Report): void {
  const names = graph.datasets.filter((dataset) => dataset.kind !== 'source').map((dataset) => dataset.name);
  for (const flow of graph.flows) {
    const target = findDataset(graph, flow.target);
    if (target === undefined) {
      report(PROBLEM_CODES.UNKNOWN_REF, flow.origin, `flow "${flow.name}" writes "${flow.target}", which is not a declared table, view or sink${didYouMean(flow.target, names)}`);
    } else if (target.kind === 'source') {
      report(PROBLEM_CODES.WRITE_TO_SOURCE, flow.origin, `flow "${flow.name}" writes source "${target.name}"; sources are read, never written`);
    }
  }
}

/** Sources and streaming tables stream; a view streams when its query reads a stream. */
function isStreaming(graph: PipelineGraph, dataset: Dataset, visiting = new Set<string>()): boolean {
  if (isStreamableKind(dataset.kind)) return true;
  if (dataset.kind !== 'view' && dataset.kind !== 'temporary-view') return false;
  if (visiting.has(nameKey(dataset.name))) return false;
  visiting.add(nameKey(dataset.name));
  return flowsInto(graph, dataset.name).some((flow) =>
    (flow.dependencies?.reads ?? []).some((read) => {
      const source = findDataset(graph, read.name);
      return read.streaming && source !== undefined && isStreaming(graph, source, visiting);
    }),
  );
}

function checkReads(graph: PipelineGraph, report: Report): void {
  const names = graph.datasets.map((dataset) => dataset.name);
  for (const flow of graph.flows) {
    for (const read of flow.dependencies?.reads ?? []) {
      const dataset = findDataset(graph, read.name);
      if (dataset === undefined) {
        report(PROBLEM_CODES.UNKNOWN_REF, flow.query.origin, `flow "${flow.name}" reads "${read.name}", which is not a declared dataset${didYouMean(read.name, names)}`);
      } else if (dataset.kind === 'sink') {
        report(PROBLEM_CODES.READ_FROM_SINK, flow.query.origin, `flow "${flow.name}" reads sink "${dataset.name}"; a sink can only be written`);
      } else if (read.streaming && !isStreaming(graph, dataset)) {
        report(
          PROBLEM_CODES.STREAM_FROM_BATCH,
          flow.query.origin,
          `flow "${flow.name}" reads STREAM(${read.name}), but ${describeDataset(dataset)} is not append-only; read it without STREAM()`,
        );
      }
    }
  }
}

function checkFlowCounts(graph: PipelineGraph, report: Report): void {
  for (const dataset of graph.datasets) {
    if (dataset.kind === 'source') continue;
    const flows = flowsInto(graph, dataset.name);
    if (flows.length === 0) {
      report(PROBLEM_CODES.NO_FLOW, dataset.origin, `${describeDataset(dataset)} has no flow writing it: give it sql, or add a flow with target ${dataset.name}`);
    }
    if (flows.length > 1 && (dataset.kind === 'materialized-view' || dataset.kind === 'view' || dataset.kind === 'temporary-view')) {
      report(
        PROBLEM_CODES.MULTIPLE_FLOWS,
        flows[1]?.origin ?? dataset.origin,
        `${describeDataset(dataset)} is written by ${flows.length} flows (${flows.map((flow) => flow.name).join(', ')}); it is defined by exactly one query — use a streaming table for several flows`,
      );
    }
  }
}

function checkApplyChanges(graph: PipelineGraph, report: Report): void {
  for (const flow of graph.flows) {
    if (flow.kind !== 'apply-changes') continue;
    const target = findDataset(graph, flow.target);
    if (target !== undefined && target.kind !== 'streaming-table') {
      report(PROBLEM_CODES.APPLY_CHANGES_TARGET, flow.origin, `apply-changes flow "${flow.name}" writes ${describeDataset(target)}; its target must be a streaming table`);
    }
    const { changes } = flow;
    if (changes.storedAsScdType === 2 && changes.applyAsTruncates !== undefined) {
      report(PROBLEM_CODES.SCD_OPTION, flow.origin, `apply-changes flow "${flow.name}": apply_as_truncates works only with SCD type 1`);
    }
    if (changes.storedAsScdType === 1 && changes.trackHistory !== undefined) {
      report(PROBLEM_CODES.SCD_OPTION, flow.origin, `apply-changes flow "${flow.name}": track-history columns need SCD type 2`);
    }
    const schema = target?.schema;
    if (schema === undefined) continue;
    const named = [...changes.keys, changes.sequenceBy, ...columnsOf(changes.columns), ...columnsOf(changes.trackHistory)];
    for (const column of new Set(named)) requireColumn(schema, column, `apply-changes flow "${flow.name}"`, flow.origin, report);
    const sequence = findColumn(schema, changes.sequenceBy);
    if (sequence !== undefined && !isOrderable(sequence.type)) {
      report(PROBLEM_CODES.TYPE_MISMATCH, flow.origin, `apply-changes flow "${flow.name}": sequence_by column "${sequence.name}" has type ${String(sequence.type)}, which has no order`);
    }
  }
}

const columnsOf = (selection: { include: readonly string[] } | { except: readonly string[] } | undefined): readonly string[] =>
  selection === undefined ? [] : 'include' in selection ? selection.include : selection.except;

function flowReadsStream(graph: PipelineGraph, flow: Flow): boolean {
  return (flow.dependencies?.reads ?? []).some((read) => {
    const dataset = findDataset(graph, read.name);
    return read.streaming && dataset !== undefined && isStreaming(graph, dataset);
  });
}

/** Keys are what a batch update (upsert) matches rows by: every flow into a keyed table must be one. */
function checkKeys(graph: PipelineGraph, report: Report): void {
  for (const dataset of graph.datasets) {
    if (!isTableDataset(dataset) || dataset.table.keys === undefined) continue;
    for (const flow of flowsInto(graph, dataset.name)) {
      if (flow.outputMode === 'update' || flow.kind === 'apply-changes') continue;
      report(
        PROBLEM_CODES.UPSERT_KEYS,
        flow.origin,
        `flow "${flow.name}" writes ${describeDataset(dataset)} in output mode ${flow.outputMode}, but the table's keys are used only by output mode update (mode: upsert)`,
      );
    }
    if (dataset.schema !== undefined) {
      for (const key of dataset.table.keys) requireColumn(dataset.schema, key, `key of ${dataset.name}`, dataset.origin, report);
    }
    refuseRepeatedKeys(dataset.table.keys, `the keys of ${dataset.name}`, dataset.origin, report);
  }
  for (const flow of graph.flows) {
    if (flow.kind === 'apply-changes') refuseRepeatedKeys(flow.changes.keys, `the apply_changes keys of flow "${flow.name}"`, flow.origin, report);
  }
}

/** A key column named twice (column names ignore case, as in DuckDB). */
function refuseRepeatedKeys(keys: readonly string[], what: string, origin: Origin, report: Report): void {
  const seen = new Set<string>();
  for (const key of keys) {
    const lower = key.toLowerCase();
    if (seen.has(lower)) report(PROBLEM_CODES.UPSERT_KEYS, origin, `${what} name column "${key}" more than once; name each key column once`);
    seen.add(lower);
  }
}

function checkStreaming(graph: PipelineGraph, report: Report): void {
  for (const flow of graph.flows) {
    if (flow.dependencies === undefined) continue;
    const streaming = flowReadsStream(graph, flow);
    // As written: a STREAM() of a batch dataset is STREAM_FROM_BATCH already, not a batch flow too.
    const writtenAsStream = flow.dependencies.reads.some((read) => read.streaming);
    const target = findDataset(graph, flow.target);
    if (!writtenAsStream && flow.kind !== 'once' && target?.kind === 'streaming-table') {
      report(
        PROBLEM_CODES.BATCH_INTO_STREAMING_TABLE,
        flow.origin,
        `flow "${flow.name}" writes streaming table ${target.name} but reads no stream: read its input with STREAM(…), or make it a once flow`,
      );
    }
    const upsertsByKeys = target !== undefined && isTableDataset(target) && target.table.keys !== undefined;
    if (!writtenAsStream && flow.outputMode === 'update' && flow.kind !== 'apply-changes' && !upsertsByKeys) {
      report(PROBLEM_CODES.STREAMING_SETTING, flow.origin, `flow "${flow.name}" is a batch query: output mode update needs a streaming read`);
    }
    if (!writtenAsStream && (flow.streaming.trigger !== undefined || flow.streaming.watermark !== undefined)) {
      report(PROBLEM_CODES.STREAMING_SETTING, flow.origin, `flow "${flow.name}" is a batch query: a trigger or watermark needs a streaming read`);
    }
    if (streaming && flow.outputMode === 'append' && flow.dependencies.aggregatesStream && watermarkOf(graph, flow) === undefined) {
      report(
        PROBLEM_CODES.AGG_APPEND_NO_WATERMARK,
        flow.origin,
        `flow "${flow.name}" aggregates a stream in append output mode without a watermark, so no group could ever be final: add a watermark (on the flow or its source) or use output mode update or complete`,
      );
    }
  }
}

/** The flow's own watermark, or one on a source it streams from (directly or through views). */
function watermarkOf(graph: PipelineGraph, flow: Flow, visiting = new Set<string>()): unknown {
  if (flow.streaming.watermark !== undefined) return flow.streaming.watermark;
  for (const read of flow.dependencies?.reads ?? []) {
    const dataset = findDataset(graph, read.name);
    if (dataset === undefined || !read.streaming || visiting.has(nameKey(dataset.name))) continue;
    visiting.add(nameKey(dataset.name));
    if (dataset.kind === 'source' && dataset.watermark !== undefined) return dataset.watermark;
    if (dataset.kind === 'view' || dataset.kind === 'temporary-view') {
      const found = flowsInto(graph, dataset.name)
        .map((upstream) => watermarkOf(graph, upstream, visiting))
        .find((mark) => mark !== undefined);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function requireColumn(schema: DeclaredSchema, column: string, what: string, origin: Origin, report: Report): void {
  if (findColumn(schema, column) !== undefined) return;
  const names = schema.map((c) => c.name);
  report(PROBLEM_CODES.UNKNOWN_COLUMN, origin, `${what} names column "${column}", which the declared schema does not have${didYouMean(column, names)}`);
}

function checkColumns(graph: PipelineGraph, report: Report): void {
  for (const dataset of graph.datasets) {
    const schema = dataset.schema;
    if (dataset.kind === 'source' && dataset.watermark !== undefined && schema !== undefined) {
      checkWatermarkColumn(schema, dataset.watermark.column, `watermark of source "${dataset.name}"`, dataset.origin, report);
    }
    if (isTableDataset(dataset) && schema !== undefined) {
      for (const field of dataset.table.partitioning) {
        const column = findColumn(schema, field.column);
        if (column === undefined) requireColumn(schema, field.column, `partition term ${field.term} of ${dataset.name}`, dataset.origin, report);
        else if (!transformAccepts(field.transform, column.type)) {
          report(PROBLEM_CODES.TYPE_MISMATCH, dataset.origin, `partition term ${field.term} of ${dataset.name}: ${field.transform} does not apply to column "${column.name}" of type ${String(column.type)}`);
        }
      }
    }
  }
  for (const flow of graph.flows) {
    const mark = flow.streaming.watermark;
    if (mark === undefined) continue;
    // The event-time column comes from the stream the flow reads, when exactly one declares a schema.
    const schemas = (flow.dependencies?.reads ?? [])
      .filter((read) => read.streaming)
      .map((read) => findDataset(graph, read.name)?.schema)
      .filter((schema): schema is DeclaredSchema => schema !== undefined);
    if (schemas.length === 1 && schemas[0] !== undefined) checkWatermarkColumn(schemas[0], mark.column, `watermark of flow "${flow.name}"`, flow.origin, report);
  }
}

function checkWatermarkColumn(schema: DeclaredSchema, name: string, what: string, origin: Origin, report: Report): void {
  const column = findColumn(schema, name);
  if (column === undefined) return requireColumn(schema, name, what, origin, report);
  if (!isTemporal(column.type)) {
    report(PROBLEM_CODES.TYPE_MISMATCH, origin, `${what}: column "${column.name}" has type ${String(column.type)}; an event-time watermark needs a timestamp or date`);
  }
}

function checkCycles(graph: PipelineGraph, report: Report): void {
  const edges = datasetEdges(graph);
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const reported = new Set<string>();
  for (const dataset of graph.datasets) {
    const start = nameKey(dataset.name);
    if (reported.has(start)) continue;
    const cycle = findCycleThrough(start, next);
    if (cycle === undefined) continue;
    for (const key of cycle) reported.add(key);
    const names = cycle.map((key) => findDataset(graph, key)?.name ?? key);
    report(PROBLEM_CODES.CYCLE, dataset.origin, `datasets depend on each other in a cycle: ${[...names, names[0]].join(' → ')}`);
  }
}

/** The shortest path from `start` back to itself (breadth first), as the nodes on it. */
function findCycleThrough(start: string, next: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const to of next.get(node) ?? []) {
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(parent.get(path[0] as string) as string);
        return path;
      }
      if (!parent.has(to)) {
        parent.set(to, node);
        queue.push(to);
      }
    }
  }
  return undefined;
}
