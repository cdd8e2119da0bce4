/** Evidence for pipeline definitions and the native engine's batch, streaming and CDC flows. */
import { proof, type Capability } from '../capability.js';

const DEFINITION = 'Pipeline definition and validation';
const BATCH = 'Native engine: batch flows';
const STREAMING = 'Native engine: streaming, windows and watermarks';
const CDC = 'Native engine: CDC apply-changes';

export const PIPELINE_CAPABILITIES: readonly Capability[] = [
  {
    id: 'pipeline.yaml',
    area: DEFINITION,
    description: 'A YAML pipeline (sources, tables, views, sinks, flows) is read into one immutable graph.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/pipeline/definition-reader.test.ts', 'the skeleton spec in the IR resolves the minimal spec: a parquet source, a materialized view, an append flow'),
      proof('unit', 'test/unit/pipeline/builder-equality.test.ts', 'builder and YAML produce the same graph for a pipeline using every kind of element'),
    ],
  },
  {
    id: 'pipeline.validate',
    area: DEFINITION,
    description: '`thund validate` reports every problem as `file:line:col CODE message` and exits 1.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/validate-plan.test.ts', 'thund validate reports every problem, one line each, in file order, and exits 1'),
      proof('e2e', 'test/e2e/validate-plan.test.ts', 'thund validate accepts the quickstart: exit 0 and a count'),
      proof('unit', 'test/unit/pipeline/validate-codes.test.ts', 'a valid pipeline has no problems'),
    ],
  },
  {
    id: 'pipeline.sql-one-query',
    area: DEFINITION,
    description: 'Flow, view and sink SQL must be one query; anything else is refused before anything runs, naming file, line and flow.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with SQL that is not one query refuses several statements, even when each is a SELECT'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with forgiving input accepts WITH, VALUES, FROM-first and set operations as queries'),
    ],
  },
  {
    id: 'pipeline.variables',
    area: DEFINITION,
    description: '`${NAME}` in catalog, storage, source and sink settings, secrets only through `*_env` fields; an unset variable is named with its line.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/pipeline/spec-env.test.ts', '${NAME} in source and sink settings expands source paths, a Kafka source topic, servers and options, and sink options'),
      proof('e2e', 'test/e2e/catalog-block.test.ts', 'catalog block failures an unset variable: one line naming file:line:column, field and variable; nothing written'),
      proof('e2e', 'test/e2e/catalog-block.test.ts', 'catalog block failures an inline token is refused without printing it'),
    ],
  },
  {
    id: 'pipeline.plan',
    area: DEFINITION,
    description: '`thund plan` prints the graph in dependency order as text, Mermaid or Graphviz dot.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/validate-plan.test.ts', 'thund plan prints datasets and flows in dependency order as text'),
      proof('e2e', 'test/e2e/validate-plan.test.ts', 'thund plan --format mermaid: nodes for datasets and flows, a STREAM edge for a streaming read'),
      proof('e2e', 'test/e2e/validate-plan.test.ts', 'thund plan --format dot: a digraph with one edge per read and write'),
    ],
  },
  {
    id: 'pipeline.errors',
    area: DEFINITION,
    description: 'A failed run exits non-zero with one line naming the file, line, flow, column or table, and leaves the catalog as it was.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with bad input names the line and field of a YAML error'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with bad input names the flow whose SQL is wrong'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with bad input refuses to write into a table whose schema does not fit, leaving it as it was'),
      proof('e2e', 'test/e2e/bad-input.test.ts', 'thund run with bad input creates no namespace when the run that needed it failed'),
    ],
  },
  {
    id: 'batch.append',
    area: BATCH,
    description: 'A batch flow appends its rows to an Iceberg table, creating it from the flow\'s output types on the first run.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/quickstart.test.ts', 'quickstart: thund run, twice commits one append snapshot per run, each on top of the last'),
      proof('e2e', 'test/e2e/quickstart.test.ts', 'quickstart: thund run, twice holds exactly the flow output twice, read through our own manifests'),
    ],
  },
  {
    id: 'batch.overwrite',
    area: BATCH,
    description: '`mode: overwrite` replaces the table\'s rows in one snapshot.',
    status: 'Available',
    proofs: [proof('e2e', 'test/e2e/overwrite.test.ts', 'overwrites the whole table in one snapshot that readers agree on')],
  },
  {
    id: 'batch.upsert',
    area: BATCH,
    description: '`mode: upsert` with `keys` replaces the live rows of the keys a run produces and adds the others, in one snapshot; bad keys are refused.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/upsert-run.test.ts', 'three overlapping upserts leave every key once, with the row of its latest run'),
      proof('e2e', 'test/e2e/upsert-run.test.ts', 'refuses mode upsert without keys, and keys without upsert, at their lines'),
      proof('e2e', 'test/e2e/upsert-first-run.test.ts', 'prints the live row count after an upsert, as thund inspect counts it'),
      proof('e2e', 'test/e2e/upsert-evolution.test.ts', 'refuses a key column another writer renamed, naming it, and commits nothing'),
    ],
  },
  {
    id: 'batch.staleness',
    area: BATCH,
    description: 'Only what is stale is recomputed: a flow whose definition and upstreams did not change is skipped; `thund plan --state` says why each table is stale.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/graph-staleness.test.ts', 'a multi-flow batch pipeline finds everything up to date on a second run and commits nothing'),
      proof('e2e', 'test/e2e/graph-staleness.test.ts', 'a multi-flow batch pipeline plans and recomputes only what depends on a changed source'),
      proof('e2e', 'test/e2e/graph-staleness.test.ts', 'a multi-flow batch pipeline recomputes only the flow whose SQL changed'),
      proof('e2e', 'test/e2e/graph-staleness.test.ts', 'a multi-flow batch pipeline recomputes everything with --full-refresh'),
    ],
  },
  {
    id: 'batch.expectations',
    area: BATCH,
    description: 'Expectations on tables and views: `warn` counts, `drop` leaves rows out, `fail` stops with nothing of the flow committed; counts land in the snapshot summary.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/graph-expectations.test.ts', 'warn counts, drop removes and counts, both in the summary and the output'),
      proof('e2e', 'test/e2e/graph-expectations.test.ts', 'a failing fail expectation exits 1 and commits nothing of its flow'),
      proof('e2e', 'test/e2e/graph-expectations.test.ts', 'a view with expectations is checked once: drop leaves rows out of every reader of the view, counts printed'),
    ],
  },
  {
    id: 'streaming.files',
    area: STREAMING,
    description: 'A flow reading `STREAM(source)` lands each new Parquet file once, in micro-batches bounded by files and rows.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/graph/streaming/stateless-append.test.ts', 'lands each new row once over three runs, in micro-batches of at most two files'),
      proof('unit', 'test/unit/engine/graph/streaming/batch-limits.test.ts', 'cuts batches by rows as well as files'),
    ],
  },
  {
    id: 'streaming.windows',
    area: STREAMING,
    description: 'Tumbling `time_bucket` windows with an event-time watermark: a row is dropped and counted late only when its window is final.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/wordcount-stream.test.ts', 'counts words per window across runs, exactly once, with late lines left out'),
      proof('unit', 'test/unit/engine/graph/streaming/windowed-append-watermark.test.ts', 'emits each window once the watermark passes its end and drops only rows of finalised windows'),
      proof('unit', 'test/unit/engine/watermark.test.ts', 'event-time watermark = max event time seen − delay leaves out of a windowed aggregation only rows whose window is final, and counts them per batch'),
    ],
  },
  {
    id: 'streaming.output-modes',
    area: STREAMING,
    description: 'Output modes `append`, `update` (upserts the changed aggregates) and `complete` (replaces the table each batch).',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/graph/streaming/update-mode.test.ts', 'a windowed aggregation upserts the windows each batch changed; late rows stay out'),
      proof('unit', 'test/unit/engine/graph/streaming/update-mode.test.ts', 'a streaming GROUP BY without a window keeps one row per key with its running aggregates'),
      proof('unit', 'test/unit/engine/graph/streaming/complete-mode.test.ts', 'replaces the table with the whole result every batch'),
    ],
  },
  {
    id: 'streaming.session-sliding-windows',
    area: STREAMING,
    description: 'Session and sliding windows.',
    status: 'Experimental',
    note: 'The operators exist and are tested, but a pipeline\'s SQL cannot ask for them yet: only `time_bucket` (tumbling) windows reach them.',
    proofs: [
      proof('unit', 'test/unit/engine/window-session.test.ts', 'session windows merges sessions when a later batch brings a row that bridges them'),
      proof('unit', 'test/unit/engine/window-sliding.test.ts', 'sliding windows puts each row into every window [k·slide, k·slide + size) holding its event time'),
    ],
  },
  {
    id: 'streaming.exactly-once',
    area: STREAMING,
    description: 'State, positions and rows commit together: a rerun after a crash, or two runs racing, land each input once.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/graph/streaming/checkpoint-restart.test.ts', 'a crash between the checkpoint upload and the commit leaves results identical after restart'),
      proof('e2e', 'test/e2e/concurrent-stream-runs.test.ts', 'lands every row once when two runs of a streaming pipeline race over new files'),
      proof('integration', 'test/integration/streaming-checkpoint-s3.test.ts', 'sql catalog checkpoints to S3 and resumes from it in the next run'),
    ],
  },
  {
    id: 'streaming.stream-of-table',
    area: STREAMING,
    description: '`STREAM(lake.t)` follows the data files a streaming table appends.',
    status: 'Available',
    proofs: [proof('unit', 'test/unit/engine/graph/streaming/stream-of-table.test.ts', 'reads the rows the upstream table appended since the last batch')],
  },
  {
    id: 'streaming.full-refresh',
    area: STREAMING,
    description: '`--full-refresh` starts a streaming flow over from all input and replaces the table\'s rows.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/graph/streaming/full-refresh.test.ts', 'replaces the rows of an append flow with one pass over all input'),
      proof('unit', 'test/unit/engine/graph/streaming/full-refresh.test.ts', 'restarts a windowed aggregation from empty state: same windows as a first run'),
    ],
  },
  {
    id: 'streaming.leftover-folders',
    area: STREAMING,
    description: 'The next run removes the staging and checkpoint folders a crashed run left, never a live run\'s.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/leftover-folders.test.ts', 'the next run removes what crashed runs left removes abandoned staging folders in the data folder and keeps a live run’s'),
      proof('e2e', 'test/e2e/leftover-folders.test.ts', 'the next run removes what crashed runs left removes superseded and orphaned checkpoint folders of dead runs and keeps a live run’s'),
    ],
  },
  {
    id: 'cdc.scd1',
    area: CDC,
    description: '`apply_changes` SCD type 1: the latest event per key by `sequence_by`, late events ignored, deletes remove the key.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/cdc-scd1.test.ts', 'SCD type 1 keeps the latest event per key by sequence; an older event is ignored; a delete removes the key'),
      proof('unit', 'test/unit/engine/graph/streaming/apply-changes-stream.test.ts', 'applies a streamed CDC feed batch by batch across runs'),
    ],
  },
  {
    id: 'cdc.scd2',
    area: CDC,
    description: '`apply_changes` SCD type 2: a history table with `__START_AT`/`__END_AT`, late events placed by sequence, one row-delta snapshot per micro-batch.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/cdc-scd2-history.test.ts', 'SCD type 2 history builds versions [__START_AT, __END_AT) from sequence values, places late events into history and closes rows on delete'),
      proof('unit', 'test/unit/engine/graph/apply-changes-sink-scd2.test.ts', 'SCD type 2 against one DuckDB statement over all events equals the statement after every batch'),
      proof('unit', 'test/unit/engine/graph/cdc-example.test.ts', 'lands the Debezium events of the example as the SCD2 history one statement computes, one snapshot per file'),
    ],
  },
  {
    id: 'cdc.options',
    area: CDC,
    description: '`apply_as_deletes`, `apply_as_truncates`, `ignore_null_updates`, `column_list`/`except_column_list` and the track-history lists.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/cdc-apply-as-deletes.test.ts', 'apply_as_deletes SCD2: a delete closes the current version and opens none'),
      proof('unit', 'test/unit/engine/cdc-apply-as-truncates.test.ts', 'apply_as_truncates (SCD type 1) removes every row older than the truncate; events after it apply, events before it and later stragglers do not'),
      proof('unit', 'test/unit/engine/cdc-ignore-null-updates.test.ts', 'ignore_null_updates SCD2: each new version takes the values of the one before for its nulls'),
      proof('unit', 'test/unit/engine/cdc-column-list.test.ts', 'column_list / except_column_list except_column_list keeps every other column'),
      proof('unit', 'test/unit/engine/cdc-track-history.test.ts', 'track history columns (SCD type 2) track_history_column_list: only changes to listed columns open a version; others update it in place'),
    ],
  },
  {
    id: 'cdc.change-formats',
    area: CDC,
    description: 'Change rows with an op column, Flink row kinds and Debezium envelopes; a null key or sequence stops the run naming it.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/engine/cdc-input-formats.test.ts', 'change input formats Debezium envelopes: c/r insert after, u replaces with after, d deletes before, sequence from source'),
      proof('unit', 'test/unit/engine/cdc-input-formats.test.ts', 'change input formats Flink row kinds: +I/+U upsert, -D deletes, -U is skipped'),
      proof('unit', 'test/unit/engine/cdc-invalid-events.test.ts', 'change events that cannot be ordered a null sequence value names the sequence'),
    ],
  },
];
