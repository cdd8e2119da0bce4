/**
 * The Python definition file of the lowered project: what SQL cannot express — sources (Parquet
 * files as batch or stream, Kafka topics with JSON decoding and watermarks) as temporary views,
 * and sinks.
 */
import type { KafkaSourceOptions, SinkDataset, SourceDataset } from '../pipeline/ir/dataset.js';
import { findDataset, flowsInto, nameKey, type PipelineGraph } from '../pipeline/ir/graph.js';
import { pythonString, pythonStringDict } from './identifiers.js';
import type { GraphPlacement } from './placement.js';
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
  if (blocks.length === 0) return undefined;
  const prelude = [
    header,
    'from pyspark import pipelines as dp',
    'from pyspark.sql import SparkSession',
    'from pyspark.sql import functions as F',
    '',
    'spark = SparkSession.active()',
  ].join('\n');
  const flows = graph.flows.filter((flow) => findDataset(graph, flow.target)?.kind === 'sink' && placement.flows.get(flow.name)?.status === 'MAPPED').map((flow) => flow.name);
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
  settings['subscribe'] = options.topic;
  settings['startingOffsets'] = options.startingOffsets;
  const schema = pythonString(schemaDdl(source.schema ?? []));
  return [
    `    raw = spark.readStream.format("kafka").options(**${pythonStringDict(settings)}).load()`,
    `    decoded = raw.select(F.from_json(F.col("value").cast("string"), ${schema}).alias("value")).select("value.*")`,
    `    return decoded${watermark}`,
  ];
}

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
