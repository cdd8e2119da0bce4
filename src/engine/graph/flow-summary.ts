/**
 * The summary properties every snapshot a flow commits carries: who wrote it (engine, pipeline,
 * flow) and the staleness record (definition hash, upstream snapshots and source fingerprints).
 */
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import { THUND_VERSION } from '../../version.js';
import { stableJson } from './definition-hash.js';
import type { UpstreamRecord } from './upstream-state.js';

export const FLOW_PROPERTY = 'thund.flow';
export const DEFINITION_HASH_PROPERTY = 'thund.flow.definition-hash';
export const UPSTREAM_PROPERTY = 'thund.upstream';

export function flowSummary(graph: PipelineGraph, flow: Flow, definitionHash: string, upstream: UpstreamRecord): Record<string, string> {
  return {
    'engine-name': 'thund',
    'engine-version': THUND_VERSION,
    'thund.pipeline': graph.name,
    [FLOW_PROPERTY]: flow.name,
    [DEFINITION_HASH_PROPERTY]: definitionHash,
    [UPSTREAM_PROPERTY]: stableJson(upstream),
  };
}
