/**
 * The `thund` package: what `import { … } from 'thund'` gives. A deliberate, small surface,
 * recorded in etc/thund.api.md (npm run api:report); it only grows — removing or changing an
 * export is a breaking change that `npm run api:check` calls out. Everything not exported here
 * is internal. Heavy modules (DuckDB, SQLite, the catalog clients, Arrow's full build) load when
 * a function needs them, so importing the package stays cheap.
 *
 * - Authoring: `pipeline()` and its builder, `parquet()`, `kafka()` sources.
 * - Pipelines: `validatePipeline`, `planPipeline`, `runPipeline` (a RunHandle with its RunEvent
 *   stream), `servePipeline`, `lowerPipeline` (a Spark Declarative Pipelines project and its
 *   lowering report).
 * - Tables: `openCatalog` (embedded, REST, Glue) → `table()` → append / overwrite / upsert /
 *   delete rows (an Arrow table or a DuckDB query) and `read` a snapshot as an Arrow table.
 * - Errors: every failure is a `ThundError` with a stable `code`; subclasses per kind.
 */

// Authoring: the builder and the pipeline graph it builds.
export { kafka, parquet, pipeline, PipelineBuilder } from './pipeline/builder.js';
export type * from './pipeline/ir/public-types.js';
export type { PipelineProblem, ProblemCode } from './pipeline/problems.js';
export { formatProblem, PROBLEM_CODES } from './pipeline/problems.js';
export type { PlanFormat } from './pipeline/render-graph.js';

// Pipelines: validate, plan, run, serve, lower.
export { lowerPipeline, planPipeline, runPipeline, servePipeline, validatePipeline } from './app/api/pipeline-api.js';
export type {
  LoweredPipeline,
  LowerPipelineOptions,
  RunPipelineOptions,
  ServePipelineOptions,
  ValidatedPipeline,
} from './app/api/pipeline-api.js';
export type * from './backend/public-types.js';
export { RUN_PHASES } from './backend/run-event.js';
export type { ElementType, LoweringEntry, LoweringReport, LoweringStatus } from './sdp/lowering-report.js';
export type { ProjectFile } from './sdp/lower-pipeline.js';

// Tables.
export { openCatalog } from './app/api/catalog-handle.js';
export type { ThundCatalog } from './app/api/catalog-handle.js';
export type { ReadOptions, RowsInput, TableDeleteResult, TableWriteResult, ThundTable, UpsertOptions } from './app/api/table-handle.js';
export type { CatalogConfig, ConnectionConfig, StorageConfig } from './app/connection-config.js';
export type { TableIdentifier } from '../catalog/catalog.js';

// Errors.
export {
  AlreadyExistsError,
  CommitConflictError,
  CommitStateUnknownError,
  CompactionConflictError,
  ConcurrentSchemaChangeError,
  FlowError,
  IcebergFormatError,
  InvalidInputError,
  NamespaceNotEmptyError,
  NoSuchNamespaceError,
  NoSuchTableError,
  SchemaMismatchError,
  StalePositionsError,
  StorageError,
  ThundError,
} from './errors.js';
export type { ErrorContext, ThundErrorOptions } from './errors.js';
