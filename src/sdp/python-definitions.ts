/**
 * The Python definition file of the lowered project: what SQL cannot express — sources (Parquet
 * files as batch or stream, Kafka topics with JSON decoding and watermarks) as temporary views,
 * sinks, and AUTO CDC flows (`dp.create_auto_cdc_flow`: Spark 4.2 has no AUTO CDC in SQL).
 */
import { RECORD_HEADERS_FIELD as HEADERS_COLUMN, type RECORD_COORDINATE_FIELDS } from '../../connectors/streaming-source.js';
import type { KafkaSourceOptions, SinkDataset, SourceDataset } from '../pipeline/ir/dataset.js';
import type { ApplyChangesFlow, ColumnSelection } from '../pipeline/ir/flow.js';
import { findDataset, flowsInto, nameKey, type PipelineGraph } from '../pipeline/ir/graph.js';
import { plainTableName, pythonString, pythonStringDict } from './identifiers.js';
import { changeFeedViewName, type GraphPlacement } from './placement.js';
import { schemaDdl } from './spark-types.js';
import { DEFINITIONS_FOLDER, query } from './sql-definitions.js';

export interface PythonFile {
  readonly path: string;
  readonly text: string;
  readonly datasets: readonly string[];
  readonly flows: readonly string[];
}

export const SOURCES_FILE = `${DEFINITIONS_FOLDER}/sources_and_sinks.py`;

export function pythonFile(graph: PipelineGraph, placement: GraphPlacement, catalog: string, header: string): PythonFile | undefined {
  const blocks: string[] = [];
  const datasets: string[] = [];
  for (const dataset of graph.datasets) {
    if (placement.datasets.get(nameKey(dataset.name))?.status !== 'MAPPED') continue;
    if (dataset.kind === 'source') blocks.push(sourceView(dataset, placement.streamingSources.has(nameKey(dataset.name))));
    else if (dataset.kind === 'sink') blocks.push(sink(dataset), ...sinkFlows(graph, placement, dataset, catalog));
    else continue;
    datasets.push(dataset.name);
  }
  const cdcFlows = graph.flows.filter((flow): flow is ApplyChangesFlow => flow.kind === 'apply-changes' && placement.flows.get(flow.name)?.status === 'MAPPED');
  blocks.push(...cdcFlows.map((flow) => autoCdcFlow(graph, flow, catalog)));
  if (blocks.length === 0) return undefined;
  const prelude = [
    header,
    'from pyspark import pipelines as dp',
    'from pyspark.sql import SparkSession',
    'from pyspark.sql import functions as F',
    '',
    'spark = SparkSession.active()',
  ].join('\n');
  const sinkFlowNames = graph.flows.filter((flow) => findDataset(graph, flow.target)?.kind === 'sink' && placement.flows.get(flow.name)?.status === 'MAPPED').map((flow) => flow.name);
  const flows = [...sinkFlowNames, ...cdcFlows.map((flow) => flow.name)];
  return { path: SOURCES_FILE, text: `${prelude}\n\n${blocks.join('\n\n')}\n`, datasets, flows };
}

/** Python identifiers for generated functions: the dataset name with anything else replaced. */
const functionName = (name: string): string => `source_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** s3:// is what DuckDB and the AWS SDK read; Spark's Hadoop file system is s3a://. */
const sparkPath = (path: string): string => (path.startsWith('s3://') ? `s3a://${path.slice('s3://'.length)}` : path);

function sourceView(source: SourceDataset, streaming: boolean): string {
  const lines = [`@dp.temporary_view(name=${pythonString(source.name)})`, `def ${functionName(source.name)}():`];
  const options = source.source;
  const watermark = source.watermark === undefined ? '' : `.withWatermark(${pythonString(source.watermark.column)}, ${pythonString(source.watermark.delay.text)})`;
  if (options.format === 'parquet') {
    const paths = options.paths.map((p) => pythonString(sparkPath(p)));
    if (!streaming) {
      lines.push(`    return spark.read.parquet(${paths.join(', ')})`);
    } else {
      const schema = source.schema === undefined ? `spark.read.parquet(${paths[0] ?? '""'}).schema` : pythonString(schemaDdl(source.schema));
      lines.push(`    return spark.readStream.schema(${schema}).parquet(${paths[0] ?? '""'})${watermark}`);
    }
  } else {
    lines.push(...kafkaBody(options, source, watermark));
  }
  return lines.join('\n');
}

function kafkaBody(options: KafkaSourceOptions, source: SourceDataset, watermark: string): string[] {
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.options)) settings[key.startsWith('kafka.') ? key : `kafka.${key}`] = value;
  if (options.bootstrapServers !== undefined) settings['kafka.bootstrap.servers'] = options.bootstrapServers;
  settings['subscribe'] = options.topics.join(',');
  settings['startingOffsets'] = options.startingOffsets;
  settings['includeHeaders'] = 'true';
  const schema = pythonString(schemaDdl(source.schema ?? []));
  const columns = { ...KAFKA_COORDINATES, [HEADERS_COLUMN]: KAFKA_HEADERS };
  const selected = Object.entries(columns).map(([name, column]) => `${column}.alias(${pythonString(name)})`);
  return [
    `    raw = spark.readStream.format("kafka").options(**${pythonStringDict(settings)}).load()`,
    `    decoded = raw.select(${selected.join(', ')}, F.from_json(F.col("value").cast("string"), ${schema}).alias("value"))`,
    `    return decoded.select(${Object.keys(columns).map(pythonString).join(', ')}, "value.*")${watermark}`,
  ];
}

/**
 * The record's coordinates beside the value's fields, named and typed as `thund run` stages them
 * (connectors/streaming-source.ts), so a flow reading them runs on both engines: the key as UTF-8
 * text, the timestamp as a wall-clock time in UTC (the project's session time zone).
 */
const KAFKA_COORDINATES: Readonly<Record<(typeof RECORD_COORDINATE_FIELDS)[number], string>> = {
  _kafka_topic: 'F.col("topic")',
  _kafka_partition: 'F.col("partition")',
  _kafka_offset: 'F.col("offset")',
  _kafka_timestamp: 'F.col("timestamp").cast("timestamp_ntz")',
  _kafka_key: 'F.col("key").cast("string")',
};

/** The headers as `thund run` stages them: {key, value as UTF-8 text} in record order, an empty list when there are none. */
const KAFKA_HEADERS =
  'F.coalesce(F.transform(F.col("headers"), lambda h: F.struct(h["key"].alias("key"), h["value"].cast("string").alias("value"))), F.array().cast("array<struct<key:string,value:string>>"))';

/** A SQL flow's target is qualified as a table (SDP 4.1 rejects a sink there): append_flow names it. */
function sinkFlows(graph: PipelineGraph, placement: GraphPlacement, sink: SinkDataset, catalog: string): string[] {
  return flowsInto(graph, sink.name)
    .filter((flow) => placement.flows.get(flow.name)?.status === 'MAPPED')
    .map((flow) =>
      [
        `@dp.append_flow(target=${pythonString(sink.name)}, name=${pythonString(flow.name)})`,
        `def flow_${flow.name.replace(/[^A-Za-z0-9_]/g, '_')}():`,
        `    return spark.sql(${pythonString(query(flow, catalog))})`,
      ].join('\n'),
    );
}

function sink(dataset: SinkDataset): string {
  return `dp.create_sink(${pythonString(dataset.name)}, format=${pythonString(dataset.format)}, options=${pythonStringDict(dataset.options)})`;
}

/** SCD type 1 from the flow's change feed view (sql-definitions.ts) into its streaming table. */
function autoCdcFlow(graph: PipelineGraph, flow: ApplyChangesFlow, catalog: string): string {
  const target = findDataset(graph, flow.target);
  const targetName = target !== undefined && (target.kind === 'streaming-table' || target.kind === 'materialized-view') ? plainTableName(catalog, target.table.identifier) : flow.target;
  const changes = flow.changes;
  const list = (names: readonly string[]): string => `[${names.map(pythonString).join(', ')}]`;
  const args = [
    `target=${pythonString(targetName)}`,
    `source=${pythonString(changeFeedViewName(flow.name))}`,
    `keys=${list(changes.keys)}`,
    `sequence_by=${pythonString(changes.sequenceBy)}`,
    ...(changes.applyAsDeletes === undefined ? [] : [`apply_as_deletes=${pythonString(changes.applyAsDeletes)}`]),
    ...columnArgs(changes.columns, list),
    'stored_as_scd_type=1',
    `name=${pythonString(flow.name)}`,
  ];
  return `dp.create_auto_cdc_flow(\n${args.map((arg) => `    ${arg},`).join('\n')}\n)`;
}

function columnArgs(selection: ColumnSelection | undefined, list: (names: readonly string[]) => string): string[] {
  if (selection === undefined) return [];
  return 'include' in selection ? [`column_list=${list(selection.include)}`] : [`except_column_list=${list(selection.except)}`];
}
