/**
 * SQL definition files of the lowered project: per mapped table, view or sink, one file with its
 * CREATE statement and the flows that write it. Flow queries pass through as written (Spark parses
 * them; `spark-pipelines dry-run` checks them), with a WATERMARK clause added where the IR has one.
 * AUTO CDC flows are Python: Spark 4.2's SQL parser has no `AS AUTO CDC` (4.3's has).
 */
import type { Dataset, TableDataset, ViewDataset } from '../pipeline/ir/dataset.js';
import type { ApplyChangesFlow, Flow } from '../pipeline/ir/flow.js';
import { flowsInto, type PipelineGraph } from '../pipeline/ir/graph.js';
import { qualifiedTableName, quoteIdentifier, sqlString } from './identifiers.js';
import { changeFeedViewName, type GraphPlacement } from './placement.js';
import { toSparkDialect } from './spark-dialect.js';
import { schemaDdl } from './spark-types.js';
import { withWatermarkClause } from './stream-reads.js';
import { qualifyTableReads } from './table-references.js';
import { queryBody } from '../pipeline/query-body.js';

export interface SqlFile {
  /** Relative to the project folder. */
  readonly path: string;
  readonly text: string;
  /** Datasets and flows (by name) defined in it. */
  readonly datasets: readonly string[];
  readonly flows: readonly string[];
}

export const DEFINITIONS_FOLDER = 'transformations';

export function sqlFiles(graph: PipelineGraph, placement: GraphPlacement, catalog: string, header: string): SqlFile[] {
  const isMapped = (dataset: Dataset): boolean => placement.datasets.get(dataset.name.toLowerCase())?.status === 'MAPPED';
  const mappedFlows = (dataset: Dataset): Flow[] => flowsInto(graph, dataset.name).filter((flow) => placement.flows.get(flow.name)?.status === 'MAPPED');
  const files: SqlFile[] = [];
  for (const dataset of graph.datasets) {
    if (!isMapped(dataset) || dataset.kind === 'source') continue;
    const flows = mappedFlows(dataset);
    const names = (d: Dataset): string => (d.kind === 'streaming-table' || d.kind === 'materialized-view' ? qualifiedTableName(catalog, d.table.identifier) : quoteIdentifier(d.name));
    let statements: string[];
    switch (dataset.kind) {
      case 'sink':
        // Sink flows are Python (python-definitions.ts): SQL qualifies a flow's target as a table.
        continue;
      case 'view':
      case 'temporary-view':
        statements = [viewStatement(dataset, flows[0], catalog)];
        break;
      case 'materialized-view':
        statements = [tableStatement(dataset, names(dataset), flows[0], catalog)];
        break;
      case 'streaming-table': {
        const implicit = flows.find((flow) => flow.implicit && flow.kind === 'append');
        statements = [tableStatement(dataset, names(dataset), implicit, catalog)];
        for (const flow of flows) {
          if (flow === implicit) continue;
          statements.push(flow.kind === 'apply-changes' ? changeFeedView(flow, catalog) : insertFlow(flow, names(dataset), catalog));
        }
        break;
      }
    }
    files.push({
      path: `${DEFINITIONS_FOLDER}/${fileStem(dataset.name)}.sql`,
      text: `${header}\n${statements.map((statement) => `${statement};\n`).join('\n')}`,
      datasets: [dataset.name],
      // AUTO CDC flows are Python (python-definitions.ts); only their change feed view is here.
      flows: flows.filter((flow) => flow.kind !== 'apply-changes').map((flow) => flow.name),
    });
  }
  return files;
}

export const fileStem = (name: string): string => name.replace(/[^A-Za-z0-9_.-]/g, '_');

export function query(flow: Flow, catalog: string): string {
  const watermark = flow.streaming.watermark;
  const text = qualifyTableReads(toSparkDialect(queryBody(flow.query.text)).sql, flow.dependencies?.reads ?? [], catalog);
  // placement.ts maps a flow with a watermark only when the clause has exactly one place.
  return watermark === undefined ? text : (withWatermarkClause(text, watermark) ?? text);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function clauses(dataset: TableDataset | ViewDataset): string[] {
  const parts: string[] = [];
  if (dataset.comment !== undefined) parts.push(`COMMENT ${sqlString(dataset.comment)}`);
  if (dataset.kind === 'streaming-table' || dataset.kind === 'materialized-view') {
    const columns = dataset.table.partitioning.map((field) => quoteIdentifier(field.column));
    if (columns.length > 0) parts.push(`PARTITIONED BY (${columns.join(', ')})`);
    const properties = Object.entries(dataset.table.properties).sort(([a], [b]) => a.localeCompare(b));
    if (properties.length > 0) parts.push(`TBLPROPERTIES (${properties.map(([key, value]) => `${sqlString(key)} = ${sqlString(value)}`).join(', ')})`);
  }
  return parts;
}

function tableStatement(dataset: TableDataset, name: string, flow: Flow | undefined, catalog: string): string {
  const kind = dataset.kind === 'streaming-table' ? 'STREAMING TABLE' : 'MATERIALIZED VIEW';
  const columns = dataset.schema === undefined ? '' : ` (${schemaDdl(dataset.schema)})`;
  const lines = [`CREATE ${kind} ${name}${columns}`, ...clauses(dataset)];
  if (flow !== undefined) lines.push(`AS\n${indent(query(flow, catalog))}`);
  return lines.join('\n');
}

function viewStatement(dataset: ViewDataset, flow: Flow | undefined, catalog: string): string {
  const lines = [`CREATE TEMPORARY VIEW ${quoteIdentifier(dataset.name)}`, ...clauses(dataset)];
  lines.push(`AS\n${indent(flow === undefined ? 'SELECT 1' : query(flow, catalog))}`);
  return lines.join('\n');
}

function insertFlow(flow: Flow, target: string, catalog: string): string {
  return `CREATE FLOW ${quoteIdentifier(flow.name)}\nAS INSERT INTO ${target} BY NAME\n${indent(query(flow, catalog))}`;
}

/** The change feed of an AUTO CDC flow, as the temporary view the flow reads as a stream. */
function changeFeedView(flow: ApplyChangesFlow, catalog: string): string {
  return `CREATE TEMPORARY VIEW ${quoteIdentifier(changeFeedViewName(flow.name))}\nAS\n${indent(query(flow, catalog))}`;
}
