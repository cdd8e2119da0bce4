/**
 * Where each element of a pipeline graph runs after lowering: in the SDP project (MAPPED), left to
 * the native engine (RUN BY NATIVE), or nowhere (REFUSED), each with its reason. First every
 * element is judged on its own against what OSS SDP can express; then the consequences spread until
 * nothing changes: a flow that reads a native view or source, or writes a native target, goes
 * native too, and so does a table one of whose flows is native (one engine writes a table). A
 * mapped flow may read a table the native engine lands: Spark reads it from the catalog.
 */
import { isTableDataset, type Dataset, type SinkDataset, type SourceDataset, type TableDataset } from '../pipeline/ir/dataset.js';
import type { Flow } from '../pipeline/ir/flow.js';
import { findDataset, flowsInto, nameKey, type PipelineGraph } from '../pipeline/ir/graph.js';
import type { LoweringStatus } from './lowering-report.js';
import type { SdpFeatures } from './spark-version.js';
import { toSparkDialect, windowOutsideGroupBy } from './spark-dialect.js';
import { streamReadCount } from './stream-reads.js';

export interface Placement {
  readonly status: LoweringStatus;
  readonly construct?: string;
  readonly reason?: string;
  readonly notes: readonly string[];
}

export interface GraphPlacement {
  readonly datasets: ReadonlyMap<string, Placement>;
  readonly flows: ReadonlyMap<string, Placement>;
  /** Sources read through STREAM() somewhere: lowered as streaming views. */
  readonly streamingSources: ReadonlySet<string>;
}

/** The sink format `thund run` publishes to (src/engine/graph/sink/kafka-sink-settings.ts). */
const NATIVE_SINK_FORMAT = 'kafka';

const mapped = (construct: string, notes: readonly string[] = []): Placement => ({ status: 'MAPPED', construct, notes });
const native = (reason: string, notes: readonly string[] = []): Placement => ({ status: 'RUN BY NATIVE', reason, notes });
const refused = (reason: string): Placement => ({ status: 'REFUSED', reason, notes: [] });

export function placeGraph(graph: PipelineGraph, features: SdpFeatures): GraphPlacement {
  const streamingSources = new Set(
    graph.flows.flatMap((flow) => (flow.dependencies?.reads ?? []).filter((read) => read.streaming).map((read) => nameKey(read.name))),
  );
  const datasets = new Map<string, Placement>();
  const flows = new Map<string, Placement>();
  for (const dataset of graph.datasets) datasets.set(nameKey(dataset.name), placeDataset(graph, dataset, streamingSources));
  for (const flow of graph.flows) flows.set(flow.name, placeFlow(graph, flow, features));
  spread(graph, datasets, flows, streamingSources);
  return { datasets, flows, streamingSources };
}

function placeDataset(graph: PipelineGraph, dataset: Dataset, streamingSources: ReadonlySet<string>): Placement {
  switch (dataset.kind) {
    case 'source':
      return placeSource(dataset, streamingSources.has(nameKey(dataset.name)));
    case 'sink':
      if (dataset.expectations.length > 0) return placeSinkWithExpectations(dataset);
      return mapped(`dp.create_sink(format=${dataset.format})`, ['SDP sinks take appended rows of streaming flows only']);
    case 'view':
    case 'temporary-view': {
      if (dataset.expectations.length > 0) return native(expectationsReason(dataset.expectations.length));
      const notes =
        dataset.kind === 'view'
          ? ['lowered as a temporary view: SDP 4.1 creates persisted views in spark_catalog, not in the Iceberg catalog, so it is not published (its query runs inside the run, as natively)']
          : [];
      return mapped('CREATE TEMPORARY VIEW', notes);
    }
    case 'streaming-table':
    case 'materialized-view':
      return placeTable(graph, dataset);
  }
}

function placeSource(source: SourceDataset, streaming: boolean): Placement {
  const options = source.source;
  if (options.format === 'parquet') {
    if (!streaming) return mapped('@dp.temporary_view over spark.read.parquet(...)', s3Notes(options.paths));
    if (options.paths.length !== 1) {
      return native(`streaming read of ${options.paths.length} Parquet paths: Spark's file stream source reads one directory or glob`);
    }
    const notes = [...s3Notes(options.paths), ...(source.schema === undefined ? ['the stream schema is taken from the files when the pipeline is defined (Spark file streams need one)'] : [])];
    return mapped(`@dp.temporary_view over spark.readStream.format("parquet")${source.watermark === undefined ? '' : '.withWatermark(...)'}`, notes);
  }
  if (options.valueFormat !== 'json') {
    return native(`Kafka value format ${options.valueFormat}: the lowering decodes JSON only (${options.valueFormat.endsWith('avro') ? 'Confluent Avro needs the schema registry' : 'the Debezium envelope is decoded by the native connector'})`);
  }
  if (source.schema === undefined) return native('Kafka JSON source without a declared schema: Spark\'s from_json needs one (declare `schema:`)');
  if (options.bootstrapServers === undefined && options.options['bootstrap.servers'] === undefined) {
    return native('Kafka source without bootstrap_servers: the native connector takes them from its environment');
  }
  if (!streaming) return native('Kafka source read without STREAM(): the lowering reads Kafka as a stream only');
  return mapped(`@dp.temporary_view over spark.readStream.format("kafka") + from_json${source.watermark === undefined ? '' : ' + withWatermark'}`, [
    'needs org.apache.spark:spark-sql-kafka-0-10_2.13 (same Spark version) on the classpath',
  ]);
}

function s3Notes(paths: readonly string[]): string[] {
  const notes: string[] = [];
  if (paths.some((p) => p.startsWith('s3://'))) notes.push('s3:// paths are read as s3a:// (needs hadoop-aws and fs.s3a settings on the Spark side)');
  if (paths.some((p) => p.includes('**'))) notes.push('Spark globs do not recurse on "**" as DuckDB does');
  return notes;
}

function placeTable(graph: PipelineGraph, table: TableDataset): Placement {
  if (table.expectations.length > 0) return native(expectationsReason(table.expectations.length));
  const transforms = table.table.partitioning.filter((field) => field.transform !== 'identity');
  if (transforms.length > 0) {
    return native(`partition transform ${transforms.map((field) => field.term).join(', ')}: SDP accepts identity partition columns only`);
  }
  const construct = table.kind === 'streaming-table' ? 'CREATE STREAMING TABLE' : 'CREATE MATERIALIZED VIEW';
  if (table.kind === 'materialized-view') {
    const count = flowsInto(graph, table.name).length;
    if (count !== 1) return native(`${count} flows write it: an SDP materialized view is defined by exactly one query`);
  }
  return mapped(construct);
}

/** SDP has no expectations; the native engine checks them, but publishes to format kafka sinks only. */
function placeSinkWithExpectations(sink: SinkDataset): Placement {
  const reason = expectationsReason(sink.expectations.length);
  if (sink.format.toLowerCase() === NATIVE_SINK_FORMAT) return native(reason);
  return refused(`${reason}, and the native engine publishes to format ${NATIVE_SINK_FORMAT} sinks only (this sink's format is ${sink.format})`);
}

function expectationsReason(count: number): string {
  return `${count} expectation${count === 1 ? '' : 's'}: OSS SDP has no expectations (expect / expect_or_drop / expect_or_fail are Databricks-only)`;
}

function placeFlow(graph: PipelineGraph, flow: Flow, features: SdpFeatures): Placement {
  if (flow.dependencies === undefined) return native('its reads are not inferred (the lowering needs them)');
  const target = findDataset(graph, flow.target);
  if (target === undefined) return refused(`its target ${flow.target} is not declared`);
  if (flow.kind === 'once') return native('once flow: OSS SDP has no once flow in SQL or Python (INSERT INTO ONCE is rejected by its parser)');
  const trigger = flow.streaming.trigger;
  if (trigger?.kind === 'processing-time') {
    return native(`processing-time trigger (${trigger.interval.text}): an SDP run is triggered once; continuous runs stay with the native engine`);
  }
  const streamReads = flow.dependencies.reads.filter((read) => read.streaming).length;
  if (flow.kind === 'apply-changes') return placeApplyChanges(flow, target, features, streamReads);
  const watermark = flow.streaming.watermark;
  if (watermark !== undefined && (streamReads !== 1 || streamReadCount(flow.query.text) !== 1)) {
    return native(`watermark with ${streamReads} STREAM() reads: the SQL WATERMARK clause belongs to exactly one streaming input`);
  }
  const notes = [
    ...(trigger === undefined ? [] : [`${trigger.kind} trigger: an SDP run processes what is available and stops, as this trigger does`]),
    ...toSparkDialect(flow.query.text).rewrites.map((rewrite) => `rewritten for Spark: ${rewrite}`),
  ];
  const windowed = flow.dependencies.aggregatesStream;
  if (windowed && flow.outputMode === 'append' && (target.kind === 'streaming-table' || target.kind === 'sink') && windowOutsideGroupBy(flow.query.text)) {
    return native(
      "its GROUP BY names no time_bucket(…) window (GROUP BY ALL or by position): Spark would group by window(…).start, which carries no watermark, and refuses append mode; group by the time_bucket(…) expression to lower it",
    );
  }
  const how = watermark === undefined ? '' : ` with WATERMARK ${watermark.column} DELAY OF INTERVAL ${watermark.delay.text}`;
  switch (target.kind) {
    case 'sink':
      if (flow.outputMode !== 'append') return refused(`output mode ${flow.outputMode} into sink ${target.name}: SDP sinks take appended rows only, and so does the native engine`);
      if (streamReads === 0) {
        const why = `batch query into sink ${target.name}: SDP sinks take streaming flows only`;
        return target.format === 'kafka' ? native(`${why}; the native engine publishes it in one Kafka transaction`) : refused(`${why}, and the native engine publishes only to kafka sinks`);
      }
      return mapped(`@dp.append_flow(target=${target.name}) over spark.sql(…)${how}`, notes);
    case 'view':
    case 'temporary-view':
      return mapped('the query of CREATE TEMPORARY VIEW', notes);
    case 'streaming-table':
      if (flow.outputMode !== 'append') {
        return native(`output mode ${flow.outputMode}: SDP streaming tables are written in append mode only`);
      }
      if (streamReads === 0) return native('batch query into a streaming table: SDP needs a STREAM() read (the native engine appends the rows every run)');
      if (windowed) {
        return mapped(
          flow.implicit ? `CREATE STREAMING TABLE … AS (windowed aggregation${how}, append mode)` : `CREATE FLOW … AS INSERT INTO … BY NAME (windowed aggregation${how}, append mode)`,
          notes,
        );
      }
      return mapped(flow.implicit ? `CREATE STREAMING TABLE … AS SELECT … FROM STREAM(…)${how}` : `CREATE FLOW … AS INSERT INTO … BY NAME SELECT … FROM STREAM(…)${how}`, notes);
    case 'materialized-view':
      if (streamReads > 0) return native('STREAM() read into a materialized view: SDP materialized views are batch queries');
      if (flow.outputMode === 'append') {
        return native('output mode append into a materialized view: the native engine adds the query\'s rows every run; an SDP materialized view replaces them (write mode: overwrite / output_mode: complete maps)');
      }
      if (flow.outputMode === 'update') return native('output mode update into a materialized view: SDP recomputes materialized views in full');
      return mapped('the query of CREATE MATERIALIZED VIEW (recomputed in full each run, as output mode complete)', notes);
    case 'source':
      return refused(`it writes source ${target.name}`);
  }
}

function placeApplyChanges(flow: Extract<Flow, { kind: 'apply-changes' }>, target: Dataset, features: SdpFeatures, streamReads: number): Placement {
  const changes = flow.changes;
  if (target.kind !== 'streaming-table') return native(`apply changes into ${target.kind} ${target.name}: SDP's AUTO CDC writes streaming tables only`);
  if (changes.storedAsScdType === 2) return native('SCD type 2: AUTO CDC … STORED AS SCD TYPE 2 is in no OSS Spark release the lowering targets');
  if (!features.autoCdcScd1) return native('apply changes (SCD type 1): AUTO CDC needs Spark 4.2 or later (--spark-version)');
  if (changes.ignoreNullUpdates) return native('ignore_null_updates: Spark\'s AUTO CDC has none (dp.create_auto_cdc_flow takes no such argument; the 4.3 SQL parser rejects IGNORE NULL UPDATES)');
  if (changes.applyAsTruncates !== undefined) return native('apply_as_truncates: Spark\'s AUTO CDC has none (dp.create_auto_cdc_flow takes no such argument; the 4.3 SQL parser rejects APPLY AS TRUNCATE)');
  if (changes.changeFormat !== undefined && changes.changeFormat.kind !== 'rows') {
    return native(`change format ${changes.changeFormat.kind}: AUTO CDC takes plain change rows (deletes through apply_as_deletes); the native engine decodes ${changes.changeFormat.kind === 'debezium' ? 'Debezium envelopes' : 'row kinds'}`);
  }
  if (streamReads === 0) return native('apply changes from a batch query: AUTO CDC reads FROM STREAM(…)');
  return mapped('dp.create_auto_cdc_flow(…, stored_as_scd_type=1) (AUTO CDC)', [
    `its change feed becomes temporary view ${changeFeedViewName(flow.name)}`,
    'the target\'s catalog must support row-level operations (MERGE): Spark\'s built-in Parquet tables do not (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE)',
    'Spark adds its own column __spark_autocdc_metadata to the target; deletes leave no row in the target',
    'Spark rejects null keys and sequence values as the native engine does',
  ]);
}

export const changeFeedViewName = (flowName: string): string => `${flowName}__changes`;

function spread(graph: PipelineGraph, datasets: Map<string, Placement>, flows: Map<string, Placement>, streamingSources: ReadonlySet<string>): void {
  let changed = true;
  while (changed) {
    changed = false;
    for (const flow of graph.flows) {
      const placement = flows.get(flow.name);
      if (placement?.status !== 'MAPPED') continue;
      const moved = flowConsequence(graph, flow, datasets, streamingSources);
      if (moved !== undefined) {
        flows.set(flow.name, moved);
        changed = true;
      } else {
        const readsNative = (flow.dependencies?.reads ?? [])
          .filter((read) => datasets.get(nameKey(read.name))?.status === 'RUN BY NATIVE')
          .map((read) => `reads ${read.name} from the catalog, landed by the native engine (run it natively first)`);
        const notes = [...new Set([...placement.notes, ...readsNative])];
        if (notes.length !== placement.notes.length) flows.set(flow.name, { ...placement, notes });
      }
    }
    for (const dataset of graph.datasets) {
      const key = nameKey(dataset.name);
      if (datasets.get(key)?.status !== 'MAPPED' || dataset.kind === 'source' || dataset.kind === 'sink') continue;
      const nativeFlow = flowsInto(graph, dataset.name).find((flow) => flows.get(flow.name)?.status === 'RUN BY NATIVE');
      if (nativeFlow !== undefined) {
        datasets.set(key, native(`flow ${nativeFlow.name} into it is run by native (one engine writes a ${isTableDataset(dataset) ? 'table' : 'view'})`));
        changed = true;
      }
    }
  }
}

/** The placement a mapped flow must move to because of what it reads or writes, if any. */
function flowConsequence(graph: PipelineGraph, flow: Flow, datasets: ReadonlyMap<string, Placement>, streamingSources: ReadonlySet<string>): Placement | undefined {
  const target = datasets.get(nameKey(flow.target));
  if (target?.status === 'RUN BY NATIVE') return native(`its target ${flow.target} is run by native`);
  if (target?.status === 'REFUSED') return refused(`its target ${flow.target} is refused`);
  for (const read of flow.dependencies?.reads ?? []) {
    const dataset = findDataset(graph, read.name);
    if (dataset === undefined) continue;
    const placement = datasets.get(nameKey(dataset.name));
    if (placement?.status === 'REFUSED') return refused(`it reads ${read.name}, which is refused`);
    if (placement?.status === 'RUN BY NATIVE' && !isTableDataset(dataset)) return native(`it reads ${dataset.kind} ${dataset.name}, which is run by native`);
    if (dataset.kind === 'source' && !read.streaming && streamingSources.has(nameKey(dataset.name))) {
      return native(`it reads source ${dataset.name} as a batch while other flows stream it: the lowering defines each source once, as a stream`);
    }
  }
  return undefined;
}
