/**
 * Runs a streaming flow (a STREAM() read, or apply-changes) as micro-batches: restore the
 * checkpoint the target's snapshots point to (unless full refresh), start a round of each
 * streamed input from its position (new files; Kafka offsets up to the end offsets seen now), and
 * per batch: stage each input's next part, run the flow (stateless SQL or the windowed
 * aggregation operator), check the target's expectations, and hand the rows to the sink (table
 * write or apply-changes), which calls back for the checkpoint (state and positions in a new
 * folder) once its state holds the batch and commits with the folder's location in the summary.
 * The previous checkpoint is deleted only after that commit, so a crash at any
 * point restarts from the last committed batch and lands the same rows (exactly once). Every
 * commit is fenced on the checkpoint its batch was planned from: when another run of the flow
 * committed first (two `thund run`s of one pipeline), the batch is dropped and the flow plans again
 * from the table's positions, so no input lands twice.
 *
 * Triggers: `available-now` (default), `processing-time` and `once` all stop when caught up in
 * `thund run`; `once` takes everything available as one batch. A non-streaming apply-changes flow
 * applies its whole input as one batch per run (CDC is idempotent by sequence).
 */
import { CommitStateUnknownError, NoSuchTableError, StalePositionsError, ThundError } from '../../../errors.js';
import { quoteIdentifier } from '../../../duckdb/session.js';
import { formatIdentifier, type LoadedTable } from '../../../../catalog/catalog.js';
import { ensureNamespace } from '../../../../catalog/ensure-namespace.js';
import type { FlowCounts, ExpectationCounts } from '../../run-events.js';
import type { StatefulOperator } from '../../operators/state-checkpoint.js';
import { createApplyChangesSink } from '../apply-changes-sink.js';
import { addExpectationCounts, checkExpectations, expectationSummary } from '../expectation-step.js';
import type { FlowContext, FlowOutcome } from '../flow-context.js';
import { CheckpointStore, checkpointSummaryKey, type SavedCheckpoint } from './checkpoint-store.js';
import { AggregationStage, StatelessStage, type FlowStage } from './flow-stage.js';
import { batchLimits } from './parquet-stream.js';
import { checkpointPositions, positionsOf } from './checkpoint-positions.js';
import { positionUnmoved, type InputPosition, type InputRound } from './input-round.js';
import { planStreamingFlow, type StreamingPlan } from './streaming-plan.js';
import { TableBatchSink } from './table-batch-sink.js';
import type { BatchSink } from './batch-sink.js';
import type { CommitFence } from '../../../table/commit-snapshot.js';
import { committedOffsets, legacyServeOffsets, movedPartitions, offsetAdvance, offsetsSummaryEntry, type OffsetAdvance } from './offset-positions.js';
import { TablePositions } from './table-positions.js';
import type { FailedRow } from './row-isolation.js';

/** How often a run plans its batches again after another run of the flow committed first. */
const MAX_REPLANS = 10;

export async function runStreamingFlow(context: FlowContext): Promise<FlowOutcome> {
  const { flow } = context;
  const plan = await planStreamingFlow(context);
  const prefix = `__thund_stream_${flow.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  // The rounds of the batch in progress (set by runFromTable): where rows the flow fails on go.
  const current: { rounds: readonly InputRound[] } = { rounds: [] };
  const stage = createStage(context, plan, prefix, (failures) => current.rounds[0]?.reject?.(failures));
  let keyColumns: readonly string[] = [];
  const sink = flow.kind === 'apply-changes' ? await createApplyChangesSink(context) : new TableBatchSink(context, flow.outputMode, () => keyColumns);
  const operators: readonly StatefulOperator[] = [stage, sink];
  const run: FlowRun = { context, plan, prefix, stage, sink, operators, current, keyColumns: () => keyColumns, setKeyColumns: (keys) => (keyColumns = keys) };

  let totals: FlowCounts = { rowsRead: 0, rowsWritten: 0, lateRows: 0, expectations: [] };
  let snapshotId: bigint | undefined;
  let batches = 0;
  try {
    for (let replans = 0; ; replans += 1) {
      const round = await runFromTable(run, batches);
      totals = add(totals, round.counts);
      batches = round.batches;
      if (round.snapshotId !== undefined) snapshotId = round.snapshotId;
      if (round.stale === undefined) break;
      // Another run of this flow committed first: its positions are the table's now, and a full
      // refresh that lost the race would replace what that run landed, so it stops instead.
      if (context.fullRefresh || replans >= MAX_REPLANS) throw round.stale;
    }
  } finally {
    for (const { input } of plan.inputs) await input.close().catch(() => undefined);
  }
  return { counts: totals, ...(snapshotId === undefined ? {} : { snapshotId }) };
}

interface FlowRun {
  readonly context: FlowContext;
  readonly plan: StreamingPlan;
  readonly prefix: string;
  readonly stage: FlowStage;
  readonly sink: BatchSink;
  readonly operators: readonly StatefulOperator[];
  readonly current: { rounds: readonly InputRound[] };
  keyColumns(): readonly string[];
  setKeyColumns(keys: readonly string[]): void;
}

interface Round {
  readonly counts: FlowCounts;
  readonly batches: number;
  readonly snapshotId?: bigint;
  /** Set when a commit found the table's positions moved: the caller plans again. */
  readonly stale?: StalePositionsError;
}

/**
 * Plans the flow's batches from the table's positions (its checkpoint, restored into the
 * operators unless this is a full refresh) and commits them one by one, each fenced on the
 * checkpoint it started from.
 */
async function runFromTable(run: FlowRun, batchesBefore: number): Promise<Round> {
  const { context, plan, prefix, stage, sink, operators } = run;
  const { flow, session } = context;
  const identifier = context.target.table.identifier;
  const table = await loadIfExists(context);
  const store = new CheckpointStore(session, () => table?.io ?? context.catalog.tableIO?.(identifier) ?? context.io, flow.name, context.tempDir);
  const offsetInputs = plan.inputs.filter(({ input }) => input.positionKind === 'offsets').map(({ input }) => input.name);
  // The table's summaries hold Kafka positions; a checkpoint holds state and file positions, so a
  // stateless flow over Kafka alone has none.
  const checkpointed = operators.some((operator) => operator.stateTables().length > 0) || plan.inputs.some(({ input }) => input.positionKind === 'files');
  const held = new Map<string, TablePositions>(offsetInputs.map((name) => [name, context.fullRefresh ? TablePositions.none() : committedOffsets(table?.metadata, flow.name, name)]));
  let committedPointer = CheckpointStore.pointer(table?.metadata, flow.name);
  let batches = batchesBefore;
  const positions = new Map<string, InputPosition | undefined>(plan.inputs.map(({ input }) => [input.name, undefined]));
  let previous: SavedCheckpoint | undefined;
  try {
    const migrating = offsetInputs.some((name) => held.get(name)?.list.length === 0);
    if (committedPointer !== undefined && !context.fullRefresh && (checkpointed || migrating)) {
      const restored = await store.restore(committedPointer, operators);
      batches = restored.batches;
      for (const [input, position] of positionsOf(restored)) positions.set(input, position);
    }
    previous = committedPointer === undefined || !checkpointed ? undefined : await store.filesOf(committedPointer);
  } catch (error) {
    // Another run committed after the table was loaded and removed the checkpoint it superseded.
    const now = CheckpointStore.pointer((await loadIfExists(context))?.metadata, flow.name);
    if (now === committedPointer) throw error;
    return { counts: { rowsRead: 0, rowsWritten: 0, lateRows: 0, expectations: [] }, batches: batchesBefore, stale: staleBatch(context, 'its checkpoint') };
  }
  if (committedPointer !== undefined && checkpointed) await store.removeLeftovers(committedPointer, CheckpointStore.superseded(table?.metadata, flow.name));
  for (const name of offsetInputs) {
    const own = held.get(name)?.list ?? [];
    const legacy = context.fullRefresh || offsetInputs.length !== 1 ? [] : legacyServeOffsets(table?.metadata);
    if (own.length > 0) positions.set(name, { kind: 'offsets', offsets: own });
    else if (positions.get(name) === undefined && legacy.length > 0) positions.set(name, { kind: 'offsets', offsets: legacy });
  }

  const rounds = await openRounds(context, plan, positions);
  run.current.rounds = rounds ?? [];
  let location: string | undefined;
  let totals: FlowCounts = { rowsRead: 0, rowsWritten: 0, lateRows: 0, expectations: [] };
  let snapshotId: bigint | undefined;
  // A flow without streamed inputs (a non-streaming apply-changes) has one batch: its whole input.
  let wholeInputPending = plan.inputs.length === 0;
  const hasWork = (): boolean => rounds !== undefined && (wholeInputPending || rounds.some((round) => round.hasMore()));
  for (let first = true; hasWork(); first = false) {
    if (context.signal?.aborted === true) break;
    wholeInputPending = false;
    location ??= table?.metadata.location ?? (await newTableLocation(context));
    const inputs = new Map<string, string>();
    const advances: OffsetAdvance[] = [];
    let rowsRead = 0;
    let moved = false;
    for (const [index, { key, input }] of plan.inputs.entries()) {
      const relation = `${prefix}__in_${index}`;
      const round = (rounds as InputRound[])[index] as InputRound;
      const before = round.position();
      rowsRead += await round.stageNext(relation);
      const after = round.position();
      moved ||= !positionUnmoved(before, after);
      positions.set(input.name, after);
      if (before.kind === 'offsets' && after.kind === 'offsets') {
        advances.push(offsetAdvance(input.name, before.offsets, after.offsets, held.get(input.name) ?? TablePositions.none(), first && context.fullRefresh));
      }
      inputs.set(key, relation);
    }
    // A read that ended where it stood (the records the end offsets promised did not come within the
    // wait: a Kafka consumer still joining its group) staged nothing and moved nothing. There is
    // nothing to run or commit, and in a new session the input's columns are not even known.
    if (rowsRead === 0 && !moved && plan.inputs.length > 0 && !(first && context.fullRefresh)) break;
    const staged = await stage.process(inputs);
    for (const round of rounds as InputRound[]) await round.landDeadLetters?.();
    if (run.keyColumns().length === 0 && plan.aggregation?.keyPositions !== undefined) run.setKeyColumns(await outputColumns(context, staged.output, plan.aggregation.keyPositions));
    const checked = await checkExpectations(session, context.target, staged.output, `${prefix}__checked`);
    const nextPositions = checkpointPositions(positions);
    const tableLocation = location;
    let saved: SavedCheckpoint | undefined;
    const checkpoint = async (): Promise<Record<string, string>> => {
      if (!checkpointed) return {};
      saved = await store.save(tableLocation, { batches: batches + 1, ...nextPositions }, operators, previous);
      return { [checkpointSummaryKey(flow.name)]: saved.location };
    };
    const summary = { ...context.summary, ...expectationSummary(checked.counts) };
    let written;
    try {
      written = await sink.write(checked.relation, summary, checkpoint, positionsFence(context, checkpointed ? committedPointer : NOT_CHECKPOINTED, advances));
    } catch (error) {
      if (saved !== undefined && !(error instanceof CommitStateUnknownError)) await store.remove(saved);
      if (error instanceof StalePositionsError) return { counts: totals, batches, ...(snapshotId === undefined ? {} : { snapshotId }), stale: error };
      throw error;
    }
    if (saved === undefined && checkpointed) {
      throw new ThundError('INTERNAL', `flow ${flow.name}: its sink committed a batch without taking the checkpoint (BatchSink.write's beforeCommit)`, {
        context: { flow: flow.name },
      });
    }
    if (saved !== undefined) {
      if (previous !== undefined) await store.retire(previous, saved);
      // What a run that crashed before its commit left is older than this commit now.
      if (first) await store.removeLeftovers(saved.location, undefined);
      previous = saved;
      committedPointer = saved.location;
    }
    for (const advance of advances) held.set(advance.source, new TablePositions(advance.after));
    batches += 1;
    if (written.snapshotId !== undefined) snapshotId = written.snapshotId;
    const counts: FlowCounts = { rowsRead, rowsWritten: written.rowsWritten, lateRows: staged.lateRows + written.lateRows, expectations: checked.counts };
    totals = add(totals, counts);
    context.progress(batches, counts, written.snapshotId);
  }
  return { counts: totals, batches, ...(snapshotId === undefined ? {} : { snapshotId }) };
}

const NOT_CHECKPOINTED = Symbol('not checkpointed');

/**
 * The fence of a batch: every commit attempt goes ahead only while the table still points to the
 * checkpoint the batch was planned from (`startedFrom`, for a flow with one) and still holds, for
 * every Kafka partition the batch read, the position it read from. Another run of the flow that
 * committed in between has landed records this batch may hold too. The attempt's summary holds
 * the Kafka positions merged with the table's.
 */
function positionsFence(context: FlowContext, startedFrom: string | undefined | typeof NOT_CHECKPOINTED, advances: readonly OffsetAdvance[]): CommitFence {
  const { flow } = context;
  return (current) => {
    if (startedFrom !== NOT_CHECKPOINTED && CheckpointStore.pointer(current, flow.name) !== startedFrom) throw staleBatch(context, 'its checkpoint');
    const moved = advances.flatMap((advance) => movedPartitions(current, flow.name, advance).map((text) => `${advance.source} ${text}`));
    if (moved.length > 0) throw staleBatch(context, `the positions of ${moved.join(', ')}`);
    return Object.fromEntries(advances.map((advance) => offsetsSummaryEntry(current, flow.name, advance)));
  };
}

function staleBatch(context: FlowContext, what: string): StalePositionsError {
  const { flow } = context;
  const table = formatIdentifier(context.target.table.identifier);
  return new StalePositionsError(`Flow "${flow.name}": another run committed to ${table} (${what}) while this batch was planned from the positions before it; the batch is planned again`, {
    context: { flow: flow.name, table },
  });
}

/**
 * The flow's stage. A stateless append flow over one Kafka input sends the rows its SQL fails on
 * to that input's dead letters (`reject`) and goes on with the others.
 */
function createStage(context: FlowContext, plan: StreamingPlan, prefix: string, reject: (failures: readonly FailedRow[]) => void): FlowStage {
  const { aggregation } = plan;
  const input = plan.inputs[0];
  if (aggregation === undefined || input === undefined) {
    // Changes are applied in order: a change the SQL fails on stops the flow rather than being skipped.
    const isolated = context.flow.kind !== 'apply-changes' && plan.inputs.length === 1 && input?.input.positionKind === 'offsets';
    const isolation = isolated ? { input: input.key, reject } : undefined;
    return new StatelessStage(context.session, context.flow.name, plan.sql, `${prefix}__out`, isolation, plan.projectionOnly === true);
  }
  return new AggregationStage(context.session, {
    name: `${prefix}__agg`,
    flowName: context.flow.name,
    sql: plan.sql,
    input: input.key,
    outputMode: context.flow.outputMode,
    ...(aggregation.window === undefined ? {} : { window: aggregation.window }),
    ...(aggregation.watermark === undefined ? {} : { watermark: { column: aggregation.watermark.column, delay: `${aggregation.watermark.delay.micros} us` } }),
  });
}

/**
 * A round per streamed input from its position; undefined when an input has nothing at all yet
 * (it cannot give its columns, so there is nothing to run).
 */
async function openRounds(context: FlowContext, plan: StreamingPlan, positions: ReadonlyMap<string, InputPosition | undefined>): Promise<InputRound[] | undefined> {
  const trigger = context.flow.streaming.trigger?.kind ?? 'available-now';
  const everything = Number.MAX_SAFE_INTEGER;
  const limits = trigger === 'once' ? { maxFiles: everything, maxRows: everything, maxBytes: everything } : batchLimits(context.target.table.properties, context.flow.name);
  const rounds: InputRound[] = [];
  for (const { input } of plan.inputs) {
    const round = await input.round(positions.get(input.name), limits);
    if (round === undefined) return undefined;
    rounds.push(round);
  }
  return rounds;
}

async function outputColumns(context: FlowContext, relation: string, positions: readonly number[]): Promise<string[]> {
  const columns = await context.session.queryJson(`DESCRIBE SELECT * FROM ${quoteIdentifier(relation)}`);
  return positions.flatMap((position) => {
    const name = columns[position]?.['column_name'];
    return name === undefined ? [] : [String(name)];
  });
}

async function loadIfExists(context: FlowContext): Promise<LoadedTable | undefined> {
  try {
    return await context.catalog.loadTable(context.target.table.identifier);
  } catch (error) {
    if (error instanceof NoSuchTableError) return undefined;
    throw error;
  }
}

/** Where the table will be created (the first batch's commit creates it). */
async function newTableLocation(context: FlowContext): Promise<string> {
  const { identifier } = context.target.table;
  await ensureNamespace(context.catalog, identifier.namespace);
  const staged = await context.catalog.stageCreateTable(identifier, { schema: { schemaId: 0, identifierFieldIds: [], fields: [] } });
  return staged.location;
}

function add(total: FlowCounts, batch: FlowCounts): FlowCounts {
  const expectations: ExpectationCounts[] = addExpectationCounts(total.expectations, batch.expectations);
  return {
    rowsRead: total.rowsRead + batch.rowsRead,
    rowsWritten: total.rowsWritten + batch.rowsWritten,
    lateRows: total.lateRows + batch.lateRows,
    expectations,
  };
}
