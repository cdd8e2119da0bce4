/** Pipeline authoring and the IR: what a user or another backend imports. */
export { kafka, parquet, pipeline, PipelineBuilder } from './builder.js';
export type { FlowInput, SinkInput, SourceInput, TableInput, ViewInput } from './builder.js';
export { loadPipelineDefinition, parsePipelineDefinition } from './spec-to-ir.js';
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
export type { PipelineGraph } from './ir/graph.js';
export type {
  Dataset,
  DatasetKind,
  KafkaSourceOptions,
  ParquetSourceOptions,
  SinkDataset,
  SourceDataset,
  TableDataset,
  TableSettings,
  ViewDataset,
} from './ir/dataset.js';
export type { ApplyChanges, ApplyChangesFlow, AppendFlow, Flow, FlowDependencies, FlowKind, FlowRead, OnceFlow } from './ir/flow.js';
export type { Expectation, ExpectationAction } from './ir/expectation.js';
export type { OutputMode, StreamingSettings, Trigger, Watermark } from './ir/streaming.js';
export type { PartitionField } from './ir/partition-field.js';
export type { DeclaredColumn, DeclaredSchema } from './ir/column-types.js';
export type { Duration } from './ir/duration.js';
export type { Origin } from './ir/origin.js';
