/**
 * The native backend's entry point for a batch pipeline: one DuckDB session, every source
 * registered as a view, each flow run into its target table.
 */
import type { Catalog } from '../../catalog/catalog.js';
import { DuckDbSession } from '../duckdb/session.js';
import { InvalidInputError } from '../errors.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { PipelineSpec } from '../pipeline/spec.js';
import type { SourceConnector } from '../../connectors/source.js';
import { runFlow, type FlowRunResult } from './run-flow.js';
import { THUND_VERSION } from '../version.js';

export interface PipelineRunRequest {
  readonly spec: PipelineSpec;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly sources: SourceConnector;
}

export async function runPipeline(request: PipelineRunRequest): Promise<FlowRunResult[]> {
  const { spec } = request;
  const session = await DuckDbSession.open();
  try {
    for (const source of spec.sources) await request.sources.register(session, source);
    const results: FlowRunResult[] = [];
    for (const flow of spec.flows) {
      const table = spec.tables.find((candidate) => candidate.key === flow.target);
      if (table === undefined) {
        throw new InvalidInputError(`Flow "${flow.name}": target ${flow.target} is not declared under tables`, {
          context: { flow: flow.name, file: flow.origin.file, line: flow.origin.line },
        });
      }
      results.push(
        await runFlow({
          session,
          catalog: request.catalog,
          io: request.io,
          flowName: flow.name,
          sql: flow.sql,
          target: table.identifier,
          mode: table.mode,
          ...(table.keys === undefined ? {} : { keys: table.keys }),
          tableProperties: table.properties,
          ...(table.partitionedBy === undefined ? {} : { partitionedBy: table.partitionedBy }),
          summaryProperties: {
            'engine-name': 'thund',
            'engine-version': THUND_VERSION,
            'thund.pipeline': spec.name,
            'thund.flow': flow.name,
          },
        }),
      );
    }
    return results;
  } finally {
    session.close();
  }
}
