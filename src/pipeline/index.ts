/** Pipeline authoring and the IR: what a user or another backend imports. */
export { kafka, parquet, pipeline, PipelineBuilder } from './builder.js';
export { parsePipelineDefinition } from './spec-to-ir.js';
export { loadPipelineDefinition } from './definition-file.js';
export type { DefinitionResult, PipelineDefinition } from './spec-to-ir.js';
export { inferDependencies } from './infer-dependencies.js';
export type { InferredGraph, SqlParser } from './infer-dependencies.js';
export { validate } from './validate.js';
export { topoOrder } from './topo-order.js';
export type { TopoOrder } from './topo-order.js';
export { renderGraph, PLAN_FORMATS } from './render-graph.js';
export type { PlanFormat } from './render-graph.js';
export { formatProblem, PROBLEM_CODES } from './problems.js';
export type { PipelineProblem, ProblemCode } from './problems.js';
export { GraphRegistry } from './ir/registry.js';
export { findDataset, flowsInto } from './ir/graph.js';
export type * from './ir/public-types.js';
