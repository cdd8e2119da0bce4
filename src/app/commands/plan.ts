/**
 * `thund plan <pipeline.yaml> [--format text|mermaid|dot] [--state]`: the validated pipeline's DAG
 * in run order. An invalid pipeline prints its problems (as `thund validate` does) and exits 1.
 * With `--state` (text only) the pipeline's catalog is opened for reading and each table dataset
 * gets what `thund run` would do with it: stale and why, or up to date.
 */
import { planStaleness } from '../../engine/graph/plan-staleness.js';
import type { Catalog } from '../../../catalog/catalog.js';
import { createParquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import type { SourceConnector } from '../../../connectors/source.js';
import { InvalidInputError, NoSuchTableError } from '../../errors.js';
import { formatProblem } from '../../pipeline/problems.js';
import { PLAN_FORMATS, renderGraph, type PlanFormat } from '../../pipeline/render-graph.js';
import type { CatalogOverrides } from '../open-catalog.js';
import { withPipelineResources } from '../pipeline-resources.js';
import { analysePipelineFile } from './validate.js';

export interface PlanOptions extends CatalogOverrides {
  /** Show each table's staleness from the catalog. */
  readonly state?: boolean;
}

export function parsePlanFormat(text: string | undefined): PlanFormat {
  if (text === undefined) return 'text';
  const format = PLAN_FORMATS.find((candidate) => candidate === text);
  if (format === undefined) throw new InvalidInputError(`--format must be one of ${PLAN_FORMATS.join(', ')}, got "${text}"`, { context: { format: text } });
  return format;
}

export async function planCommand(specPath: string, format: PlanFormat, print: (line: string) => void, options: PlanOptions = {}): Promise<number> {
  if (options.state === true && format !== 'text') throw new InvalidInputError(`--state shows staleness in the text format only, not with --format ${format}`);
  const analysed = await analysePipelineFile(specPath);
  if (analysed.problems.length > 0 || analysed.graph === undefined || analysed.definition === undefined) {
    for (const problem of analysed.problems) print(formatProblem(problem));
    return 1;
  }
  print(renderGraph(analysed.graph, format));
  if (options.state !== true) return 0;
  const graph = analysed.graph;
  const printStates = async (catalog: Pick<Catalog, 'loadTable'>, sources: SourceConnector, description: string): Promise<number> => {
    const states = await planStaleness(graph, catalog, sources);
    print('');
    print(`state (${description}):`);
    for (const [table, state] of states) print(`  ${table}: ${state}`);
    return 0;
  };
  try {
    // Reading state never creates a warehouse.
    return await withPipelineResources(analysed.definition, { ...options, existingOnly: true }, (opened, sources) => printStates(opened.catalog, sources, opened.description));
  } catch (error) {
    if (!(error instanceof NoSuchTableError)) throw error;
    // Nothing has run yet: every table is missing.
    const noTables = { loadTable: () => Promise.reject(error) };
    const sources = createParquetSourceConnector();
    try {
      return await printStates(noTables, sources, error.message);
    } finally {
      await sources.close();
    }
  }
}
