/**
 * DuckDB's settings for a graph that reads Kafka, where the settings given name none:
 * - threads: every core but one. Each Kafka source has a consumer thread that decodes and packs
 *   the fetched records, busy for most of a batch; on two cores, two DuckDB threads beside it spent
 *   more CPU and landed fewer records (bench/kafka: 150k against 178k records/s with one).
 * - freed memory handed back at 32 MB: a service stages and writes batch after batch, and DuckDB's
 *   allocator kept what each batch freed. In paired bench/kafka runs at 1M records peak RSS went
 *   from 533–565 MiB to 470–485 MiB, for about 9% fewer records/s (0.9 s more CPU per 1M records).
 * Other graphs keep DuckDB's defaults (threads: every core).
 */
import { availableParallelism } from 'node:os';
import type { DuckDbSettings } from '../../duckdb/session.js';
import { kafkaSources, type PipelineGraph } from '../../pipeline/ir/graph.js';

const KAFKA_FLUSH_FREED_MEMORY_ABOVE = '32MB';

export function duckDbSettingsFor(graph: PipelineGraph, settings: DuckDbSettings | undefined): DuckDbSettings | undefined {
  if (kafkaSources(graph).length === 0) return settings;
  return { threads: Math.max(1, availableParallelism() - 1), flushFreedMemoryAbove: KAFKA_FLUSH_FREED_MEMORY_ABOVE, ...settings };
}
