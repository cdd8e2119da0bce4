/**
 * A pipeline spec read through the real definition reader with its dependencies inferred, and the
 * SinkFlowContext of one of its flows, for the sink tests that need no Kafka.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO, toFileUri } from '../../../../../connectors/storage/local-file-io.js';
import { SqlCatalog } from '../../../../../catalog/sql/index.js';
import type { DuckDbSession } from '../../../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../../../src/duckdb/sql-parser.js';
import type { SinkFlowContext } from '../../../../../src/engine/graph/sink/sink-flow-context.js';
import { inferDependencies } from '../../../../../src/pipeline/infer-dependencies.js';
import { findDataset, type PipelineGraph } from '../../../../../src/pipeline/ir/graph.js';
import { parsePipelineDefinition } from '../../../../../src/pipeline/spec-to-ir.js';

export async function inferredGraph(spec: string, session: DuckDbSession, file = '/work/pipeline.yaml'): Promise<PipelineGraph> {
  const parsed = parsePipelineDefinition(spec, file);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session));
  if (inferred.problems.length > 0) throw new Error(inferred.problems.map((p) => p.message).join('\n'));
  return inferred.graph;
}

export interface SinkContextHandle {
  readonly context: SinkFlowContext;
  close(): Promise<void>;
}

export async function sinkFlowContext(spec: string, session: DuckDbSession, flowName: string): Promise<SinkContextHandle> {
  const graph = await inferredGraph(spec, session);
  const flow = graph.flows.find((f) => f.name === flowName);
  if (flow === undefined) throw new Error(`no flow ${flowName}`);
  const target = findDataset(graph, flow.target);
  if (target?.kind !== 'sink') throw new Error(`flow ${flowName} writes no sink`);
  const work = mkdtempSync(join(tmpdir(), 'thund-sink-unit-'));
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: toFileUri(join(work, 'warehouse')), io });
  return {
    context: { session, catalog, io, graph, flow, target, fullRefresh: false, tempDir: work, progress: () => undefined },
    close: async () => {
      await catalog.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
