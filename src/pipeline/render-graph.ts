/**
 * A pipeline graph as text for people (`thund plan`), or as Mermaid or Graphviz DOT. Datasets and
 * flows are nodes; a read is an edge dataset → flow (marked STREAM for streaming reads), a write
 * an edge flow → dataset. Elements appear in topological order.
 */
import { describeDataset, type Dataset } from './ir/dataset.js';
import type { Flow } from './ir/flow.js';
import { findDataset, nameKey, type PipelineGraph } from './ir/graph.js';
import { topoOrder } from './topo-order.js';

export type PlanFormat = 'text' | 'mermaid' | 'dot';

export const PLAN_FORMATS: readonly PlanFormat[] = ['text', 'mermaid', 'dot'];

export function renderGraph(graph: PipelineGraph, format: PlanFormat): string {
  switch (format) {
    case 'text':
      return renderText(graph);
    case 'mermaid':
      return renderMermaid(graph);
    case 'dot':
      return renderDot(graph);
  }
}

function flowLabel(flow: Flow): string {
  const kind = flow.kind === 'apply-changes' ? `apply-changes scd${flow.changes.storedAsScdType}` : flow.kind;
  return `${kind}, output ${flow.outputMode}`;
}

function datasetDetail(dataset: Dataset): string {
  switch (dataset.kind) {
    case 'source':
      return dataset.source.format === 'parquet' ? 'parquet' : `kafka topic${dataset.source.topics.length > 1 ? 's' : ''} ${dataset.source.topics.join(', ')}`;
    case 'streaming-table':
    case 'materialized-view': {
      const parts = dataset.table.partitioning.map((field) => field.term);
      const expectations = dataset.expectations.length;
      return [parts.length > 0 ? `partitioned by ${parts.join(', ')}` : '', expectations > 0 ? `${expectations} expectation(s)` : ''].filter(Boolean).join('; ');
    }
    case 'sink':
      return dataset.format;
    default:
      return dataset.expectations.length > 0 ? `${dataset.expectations.length} expectation(s)` : '';
  }
}

function renderText(graph: PipelineGraph): string {
  const order = topoOrder(graph);
  const lines = [`pipeline ${graph.name}: ${graph.datasets.length} datasets, ${graph.flows.length} flows`, '', 'datasets (in dependency order):'];
  order.datasets.forEach((dataset, i) => {
    const detail = datasetDetail(dataset);
    lines.push(`  ${i + 1}. ${describeDataset(dataset)}${detail === '' ? '' : ` (${detail})`}`);
  });
  lines.push('', 'flows (in run order):');
  order.flows.forEach((flow, i) => {
    const reads = (flow.dependencies?.reads ?? []).map((read) => (read.streaming ? `STREAM(${read.name})` : read.name));
    lines.push(`  ${i + 1}. ${flow.name}: ${reads.length === 0 ? '(no dataset)' : reads.join(', ')} → ${flow.target}  [${flowLabel(flow)}]`);
  });
  return lines.join('\n');
}

/** Node ids: d0…, f0… in declaration order (names may hold dots and other characters). */
function ids(graph: PipelineGraph): { dataset: (name: string) => string | undefined; flow: (flow: Flow) => string } {
  const datasetIds = new Map(graph.datasets.map((dataset, i) => [nameKey(dataset.name), `d${i}`]));
  const flowIds = new Map(graph.flows.map((flow, i) => [flow, `f${i}`]));
  return {
    dataset: (name) => (findDataset(graph, name) === undefined ? undefined : datasetIds.get(nameKey(name))),
    flow: (flow) => flowIds.get(flow) ?? 'f?',
  };
}

const mermaidText = (text: string): string => text.replaceAll('"', '#quot;');

function renderMermaid(graph: PipelineGraph): string {
  const order = topoOrder(graph);
  const id = ids(graph);
  const lines = ['flowchart LR'];
  for (const dataset of order.datasets) {
    const label = mermaidText(`${dataset.name}<br/><i>${dataset.kind}</i>`);
    const shape = dataset.kind === 'source' ? [`[(`, `)]`] : dataset.kind === 'sink' ? ['>', ']'] : ['[', ']'];
    lines.push(`  ${id.dataset(dataset.name)}${shape[0]}"${label}"${shape[1]}`);
  }
  for (const flow of order.flows) {
    lines.push(`  ${id.flow(flow)}{{"${mermaidText(`${flow.name}<br/>${flowLabel(flow)}`)}"}}`);
    for (const read of flow.dependencies?.reads ?? []) {
      const from = id.dataset(read.name);
      if (from !== undefined) lines.push(read.streaming ? `  ${from} ==>|STREAM| ${id.flow(flow)}` : `  ${from} --> ${id.flow(flow)}`);
    }
    const to = id.dataset(flow.target);
    if (to !== undefined) lines.push(`  ${id.flow(flow)} --> ${to}`);
  }
  return lines.join('\n');
}

const dotText = (text: string): string => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`;

function renderDot(graph: PipelineGraph): string {
  const order = topoOrder(graph);
  const id = ids(graph);
  const lines = [`digraph ${dotText(graph.name)} {`, '  rankdir=LR;'];
  for (const dataset of order.datasets) {
    const shape = dataset.kind === 'source' ? 'cylinder' : dataset.kind === 'sink' ? 'cds' : 'box';
    lines.push(`  ${id.dataset(dataset.name)} [shape=${shape}, label=${dotText(`${dataset.name}\n${dataset.kind}`)}];`);
  }
  for (const flow of order.flows) {
    lines.push(`  ${id.flow(flow)} [shape=hexagon, label=${dotText(`${flow.name}\n${flowLabel(flow)}`)}];`);
    for (const read of flow.dependencies?.reads ?? []) {
      const from = id.dataset(read.name);
      if (from !== undefined) lines.push(`  ${from} -> ${id.flow(flow)}${read.streaming ? ' [style=bold, label="STREAM"]' : ''};`);
    }
    const to = id.dataset(flow.target);
    if (to !== undefined) lines.push(`  ${id.flow(flow)} -> ${to};`);
  }
  lines.push('}');
  return lines.join('\n');
}
