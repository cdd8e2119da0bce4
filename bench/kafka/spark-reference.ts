/**
 * The reference of bench/kafka: Spark Structured Streaming (pyspark 4.1.4, local[2], the SDP test
 * env of test/stack/spark-pipelines.ts with its Iceberg 1.12.0 runtime and Kafka connector jars)
 * lands a topic from its earliest offsets, trigger available-now, into an Iceberg table of a local
 * Hadoop catalog (spark_kafka_to_iceberg.py); JSON values through from_json, or Confluent Avro
 * through spark-avro's from_avro over the value past its 5-byte header. The peak RSS is that of the whole process tree
 * (the Python driver and Spark's JVM), sampled every 100 ms.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mavenClasspath } from '../../test/stack/maven.js';
import { prepareSparkPipelines, SDP_KAFKA_CONNECTOR_VERSION } from '../../test/stack/spark-pipelines.js';
import { execSampled } from './process-tree-rss.js';

export interface SparkReferenceOptions {
  readonly brokers: string;
  readonly topic: string;
  /** A select list over the landed table whose one row the result carries (`digest`). */
  readonly digestSelect: string;
  /** The values' Avro writer schema (JSON): they are Confluent Avro, decoded with from_avro; else JSON. */
  readonly avroSchema?: string;
  readonly driverMemory?: string;
  /** Keep the warehouse folder (printed) instead of removing it. */
  readonly keep?: boolean;
}

export interface SparkReferenceResult {
  /** Rows in the Iceberg table after the run. */
  readonly records: number;
  /** From the query's start to its end (JVM start and session creation excluded). */
  readonly seconds: number;
  readonly recordsPerSecond: number;
  readonly peakRssMiB: number;
  /** JVM start and session creation, not in `seconds`. */
  readonly startupSeconds: number;
  readonly batches: number;
  /** Spark's own split of the query time (addBatch, latestOffset, queryPlanning, walCommit, ...), summed over batches. */
  readonly durationMs: Readonly<Record<string, number>>;
  readonly digest: Readonly<Record<string, unknown>>;
}

interface ScriptOutput {
  readonly records: number;
  readonly distinct_keys: number;
  readonly query_seconds: number;
  readonly session_seconds: number;
  readonly batches: number;
  readonly duration_ms: Readonly<Record<string, number>>;
  readonly digest: Readonly<Record<string, unknown>>;
}

/** spark-avro for from_avro, of the Kafka connector's 4.1 line (Maven Central has no 4.1.4); its Avro jars come with pyspark. */
const SPARK_AVRO = { groupId: 'org.apache.spark', artifactId: 'spark-avro_2.13', version: SDP_KAFKA_CONNECTOR_VERSION, intransitive: true } as const;

export async function runSparkReference(options: SparkReferenceOptions): Promise<SparkReferenceResult> {
  const { python, jars: sdpJars } = await prepareSparkPipelines();
  const jars = options.avroSchema === undefined ? sdpJars : [...sdpJars, ...(await mavenClasspath('spark-avro', [SPARK_AVRO]))];
  const warehouse = await mkdtemp(join(tmpdir(), 'thund-bench-kafka-spark-'));
  try {
    const args = [
      join(import.meta.dirname, 'spark_kafka_to_iceberg.py'),
      '--jars', jars.join(','),
      '--warehouse', warehouse,
      '--brokers', options.brokers,
      '--topic', options.topic,
      '--digest-select', options.digestSelect,
      ...(options.avroSchema === undefined ? [] : ['--avro-schema', options.avroSchema]),
      ...(options.driverMemory === undefined ? [] : ['--driver-memory', options.driverMemory]),
    ];
    const { stdout, sampler } = await execSampled(python, args, { ...process.env, SPARK_LOCAL_IP: '127.0.0.1' });
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ScriptOutput;
    return {
      records: out.records,
      seconds: out.query_seconds,
      recordsPerSecond: out.records / out.query_seconds,
      peakRssMiB: sampler.peakMiB(),
      startupSeconds: out.session_seconds,
      batches: out.batches,
      durationMs: out.duration_ms,
      digest: out.digest,
    };
  } finally {
    if (options.keep === true) console.log(`spark reference warehouse kept: ${warehouse}`);
    else await rm(warehouse, { recursive: true, force: true });
  }
}
