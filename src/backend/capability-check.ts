/**
 * What in a graph a backend cannot run, per element, from its declared Capabilities, so a run
 * refuses up front (naming each element) instead of dropping semantics silently.
 */
import { datasetExpectations, isTableDataset } from '../pipeline/ir/dataset.js';
import type { PipelineGraph } from '../pipeline/ir/graph.js';
import { formatOrigin } from '../pipeline/ir/origin.js';
import type { Capabilities } from './exec-backend.js';

export function unsupportedElements(graph: PipelineGraph, capabilities: Capabilities): string[] {
  const found: string[] = [];
  const at = (origin: { file: string; line: number; column: number }) => formatOrigin(origin);
  for (const dataset of graph.datasets) {
    if (!capabilities.datasetKinds.includes(dataset.kind)) found.push(`${at(dataset.origin)}: ${dataset.kind} ${dataset.name}`);
    if (dataset.kind === 'source') {
      if (!capabilities.sourceFormats.includes(dataset.source.format)) found.push(`${at(dataset.origin)}: ${dataset.source.format} source ${dataset.name}`);
      if (dataset.watermark !== undefined && !capabilities.watermarks) found.push(`${at(dataset.origin)}: watermark of source ${dataset.name}`);
    }
    for (const expectation of datasetExpectations(dataset)) {
      if (!capabilities.expectationActions.includes(expectation.action)) {
        found.push(`${at(expectation.origin)}: expectation ${expectation.name} (${expectation.action}) of ${dataset.name}`);
      }
    }
    if (isTableDataset(dataset) && dataset.table.partitioning.length > 0 && !capabilities.partitioning) {
      found.push(`${at(dataset.origin)}: partitioning of ${dataset.name}`);
    }
  }
  for (const flow of graph.flows) {
    if (!capabilities.flowKinds.includes(flow.kind)) found.push(`${at(flow.origin)}: ${flow.kind} flow ${flow.name}`);
    if (!capabilities.outputModes.includes(flow.outputMode)) found.push(`${at(flow.origin)}: output mode ${flow.outputMode} of flow ${flow.name}`);
    if (flow.kind === 'apply-changes' && !capabilities.scdTypes.includes(flow.changes.storedAsScdType)) {
      found.push(`${at(flow.origin)}: SCD type ${flow.changes.storedAsScdType} of flow ${flow.name}`);
    }
    const trigger = flow.streaming.trigger;
    if (trigger !== undefined && !capabilities.triggers.includes(trigger.kind)) found.push(`${at(flow.origin)}: ${trigger.kind} trigger of flow ${flow.name}`);
    if (flow.streaming.watermark !== undefined && !capabilities.watermarks) found.push(`${at(flow.origin)}: watermark of flow ${flow.name}`);
    if (!capabilities.streamingReads && (flow.dependencies?.reads ?? []).some((read) => read.streaming)) {
      found.push(`${at(flow.query.origin)}: streaming read in flow ${flow.name}`);
    }
  }
  return found;
}

/** Sinks of a format the backend cannot write, e.g. `spec.yaml:9:3: delta sink export`. */
export function unsupportedSinks(graph: PipelineGraph, formats: readonly string[]): string[] {
  const known = new Set(formats.map((format) => format.toLowerCase()));
  return graph.datasets.flatMap((dataset) =>
    dataset.kind === 'sink' && !known.has(dataset.format.toLowerCase()) ? [`${formatOrigin(dataset.origin)}: ${dataset.format} sink ${dataset.name} (sink formats: ${formats.join(', ')})`] : [],
  );
}
