/**
 * The IR's types and the builder's input types as other code sees them: re-exported whole by the
 * pipeline room's index and by the package entry (src/index.ts), so the list is written once.
 */
export type {
  Dataset,
  DatasetKind,
  KafkaSourceOptions,
  KafkaValueFormat,
  ParquetSourceOptions,
  SinkDataset,
  SourceDataset,
  SourceOptions,
  StartingOffsets,
  TableDataset,
  TableIdentifierParts,
  TableSettings,
  ViewDataset,
} from './dataset.js';
export type { ApplyChanges, ApplyChangesFlow, AppendFlow, ChangeFormat, ColumnSelection, Flow, FlowDependencies, FlowKind, FlowRead, OnceFlow } from './flow.js';
export type { Expectation, ExpectationAction } from './expectation.js';
export type { OutputMode, StreamingSettings, Trigger, TriggerKind, Watermark } from './streaming.js';
export type { PartitionField, PartitionTransformName } from './partition-field.js';
export type { DeclaredColumn, DeclaredSchema } from './column-types.js';
export type { Duration } from './duration.js';
export type { Origin } from './origin.js';
export type { PipelineGraph } from './graph.js';
export type {
  ApplyChangesInput,
  ColumnTypeInput,
  ExpectationInput,
  ExpectationsInput,
  FlowInput,
  SchemaInput,
  SourceInput,
  StreamingInput,
  TriggerInput,
  WatermarkInput,
} from './declarations.js';
export type { ImplicitFlowInput, SinkInput, TableInput, ViewInput } from './dataset-declarations.js';
