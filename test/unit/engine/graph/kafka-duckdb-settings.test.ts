import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../../src/duckdb/session.js';
import { duckDbSettingsFor } from '../../../../src/engine/graph/kafka-duckdb-settings.js';
import type { PipelineGraph } from '../../../../src/pipeline/ir/graph.js';

const graphReading = (...formats: string[]): PipelineGraph => ({ datasets: formats.map((format) => ({ kind: 'source', source: { format } })) }) as unknown as PipelineGraph;

describe("DuckDB's settings for a graph that reads Kafka", () => {
  it('leaves one core to the consumer worker and hands freed memory back, unless the settings say otherwise', () => {
    expect(duckDbSettingsFor(graphReading('parquet', 'kafka'), undefined)).toEqual({ threads: Math.max(1, availableParallelism() - 1), flushFreedMemoryAbove: '32MB' });
    expect(duckDbSettingsFor(graphReading('kafka'), { threads: 3, memoryLimit: '1GB' })).toEqual({ threads: 3, memoryLimit: '1GB', flushFreedMemoryAbove: '32MB' });
    expect(duckDbSettingsFor(graphReading('parquet'), undefined)).toBeUndefined();
    expect(duckDbSettingsFor(graphReading('parquet'), { threads: 2 })).toEqual({ threads: 2 });
  });

  it('are the settings of the session DuckDB opens', async () => {
    const session = await DuckDbSession.open({ threads: 1, flushFreedMemoryAbove: '32MB' });
    try {
      const rows = await session.queryJson(`SELECT name, value FROM duckdb_settings() WHERE name IN ('threads', 'allocator_bulk_deallocation_flush_threshold') ORDER BY name`);
      expect(rows).toEqual([
        { name: 'allocator_bulk_deallocation_flush_threshold', value: '30.5 MiB' },
        { name: 'threads', value: '1' },
      ]);
    } finally {
      session.close();
    }
  });
});
