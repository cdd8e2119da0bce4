/**
 * DuckDB's threads for a run whose settings name none. A graph that reads Kafka has a consumer
 * thread per source that decodes and packs the fetched records, busy for most of a batch; DuckDB
 * then gets every core but one. On two cores, two DuckDB threads beside that worker spent more CPU
 * and landed fewer records (bench/kafka: 150k against 195k records/s with one). Without Kafka,
 * DuckDB's own default (every core).
 */
import { availableParallelism } from 'node:os';
import type { DuckDbSettings } from '../../duckdb/session.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';

export function duckDbSettingsFor(graph: PipelineGraph, settings: DuckDbSettings | undefined): DuckDbSettings | undefined {
  if (settings?.threads !== undefined) return settings;
  const readsKafka = graph.datasets.some((dataset) => dataset.kind === 'source' && dataset.source.format === 'kafka');
  if (!readsKafka) return settings;
  return { ...settings, threads: Math.max(1, availableParallelism() - 1) };
}
