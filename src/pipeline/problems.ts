/**
 * Problems found in a pipeline: a stable code, a message, and the origin of the element at fault.
 * Codes are part of the public surface: tools match on them, so they never change meaning.
 */
import { formatOrigin, type Origin } from './ir/origin.js';

export const PROBLEM_CODES = {
  /** The spec file does not match the definition schema (unknown field, wrong value, …). */
  SPEC: 'THUND_E_SPEC',
  /** The spec file is not valid YAML. */
  YAML_SYNTAX: 'THUND_E_YAML_SYNTAX',
  /** A pipeline module (.ts, .js) that does not load, or whose default export is not a built pipeline graph. */
  PIPELINE_MODULE: 'THUND_E_PIPELINE_MODULE',
  /** Two datasets, two flows, or two expectations of one dataset share a name (ignoring case). */
  DUPLICATE_NAME: 'THUND_E_DUPLICATE_NAME',
  /** A flow's target or a dataset its query reads is not declared. */
  UNKNOWN_REF: 'THUND_E_UNKNOWN_REF',
  /** Datasets that depend on each other in a circle. */
  CYCLE: 'THUND_E_CYCLE',
  /** STREAM() of a dataset that is not append-only (materialized view, view, sink). */
  STREAM_FROM_BATCH: 'THUND_E_STREAM_FROM_BATCH',
  /** An aggregation over a stream in append output mode with no watermark: it could never emit. */
  AGG_APPEND_NO_WATERMARK: 'THUND_E_AGG_APPEND_NO_WATERMARK',
  /** A column used with a type that cannot serve (watermark on text, day() of a long, …). */
  TYPE_MISMATCH: 'THUND_E_TYPE_MISMATCH',
  /** A column named in settings is missing from the declared schema. */
  UNKNOWN_COLUMN: 'THUND_E_UNKNOWN_COLUMN',
  /** A flow writes into a source. */
  WRITE_TO_SOURCE: 'THUND_E_WRITE_TO_SOURCE',
  /** A flow reads a sink. */
  READ_FROM_SINK: 'THUND_E_READ_FROM_SINK',
  /** A table, view or sink that no flow writes. */
  NO_FLOW: 'THUND_E_NO_FLOW',
  /** A materialized view or view written by more than one flow. */
  MULTIPLE_FLOWS: 'THUND_E_MULTIPLE_FLOWS',
  /** An apply-changes flow whose target is not a streaming table. */
  APPLY_CHANGES_TARGET: 'THUND_E_APPLY_CHANGES_TARGET',
  /** apply_as_truncates with SCD type 2, or track-history columns with SCD type 1. */
  SCD_OPTION: 'THUND_E_SCD_OPTION',
  /** A streaming table fed by a non-once flow that reads no stream. */
  BATCH_INTO_STREAMING_TABLE: 'THUND_E_BATCH_INTO_STREAMING_TABLE',
  /** An output mode or trigger the flow cannot have (update on a batch flow, a trigger on a batch flow). */
  STREAMING_SETTING: 'THUND_E_STREAMING_SETTING',
  /** Table keys with no flow that upserts by them (keys serve batch flows in output mode update), or keys naming a column twice. */
  UPSERT_KEYS: 'THUND_E_UPSERT_KEYS',
  /** A flow's SQL does not parse, or is not a single query. */
  SQL_SYNTAX: 'THUND_E_SQL_SYNTAX',
} as const;

export type ProblemCode = (typeof PROBLEM_CODES)[keyof typeof PROBLEM_CODES];

export interface PipelineProblem {
  readonly code: ProblemCode;
  readonly message: string;
  readonly origin: Origin;
}

/** `file:line:col CODE message`: the one-line form `thund validate` prints. */
export function formatProblem(problem: PipelineProblem): string {
  return `${formatOrigin(problem.origin)} ${problem.code} ${problem.message}`;
}

/** File order (then code), so reports read top to bottom. */
export function sortProblems(problems: readonly PipelineProblem[]): PipelineProblem[] {
  return [...problems].sort(
    (a, b) =>
      a.origin.file.localeCompare(b.origin.file) ||
      a.origin.line - b.origin.line ||
      a.origin.column - b.origin.column ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}
