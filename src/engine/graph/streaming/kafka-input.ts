/**
 * A Kafka source read with STREAM(): its position is the next offset per partition. A round reads
 * the partitions' end offsets when it starts and stages batches up to them (available-now), each
 * at most the batch's records (offsets) and bytes; a partition nothing arrives from for a while
 * (records past the last stable offset of an open transaction) ends the round where it stands.
 * Records land as rows of their value's fields plus `_kafka_topic`, `_kafka_partition`,
 * `_kafka_offset`, `_kafka_timestamp` (a timestamp), `_kafka_key` and `_kafka_headers` (a list of
 * {key, value}), staged like serve's batches.
 * Records that cannot be decoded, or whose value has a field named like a coordinate column, go to
 * the source's dead-letter table (exactly once: that table records its own positions) before the
 * batch's rows are committed. Once a batch is staged, the round reads the next one's records
 * while the engine processes it (read-ahead.ts).
 */
import type { TableIdentifier } from '../../../../catalog/catalog.js';
import type { OffsetStream, OffsetStreamConnector, PartitionOffsets } from '../../../../connectors/source.js';
import { topicPartitionKey, type DeadLetterCandidate, type PositionRange, type SourcePosition } from '../../../../connectors/streaming-source.js';
import { quoteIdentifier, quoteLiteral } from '../../../duckdb/session.js';
import { InvalidInputError } from '../../../errors.js';
import type { SourceDataset } from '../../../pipeline/ir/dataset.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import { HEADERS_COLUMN, RECORD_COLUMNS, reservedFieldOf, stageRecords, type JsonRecord } from './batch-staging.js';
import { applyDeclaredColumns } from './declared-columns.js';
import { LearnedColumns } from './learned-columns.js';
import { hasFieldsOutside } from './new-fields.js';
import { DeadLetterSink } from './dead-letter-sink.js';
import { flowFailureToDeadLetter } from './dead-letters.js';
import type { FlowContext } from '../flow-context.js';
import type { InputRound, StreamInput } from './input-round.js';
import { nextRanges } from './kafka-ranges.js';
import { ReadAhead } from './read-ahead.js';
import { narrowedColumns, structFieldsRead } from './struct-fields-read.js';

export const DEFAULT_KAFKA_BATCH_RECORDS = 100_000;
export const DEFAULT_KAFKA_BATCH_BYTES = 64 * 1024 * 1024;
/** How long a round waits for records that the end offsets promise before it ends where it stands. */
const IDLE_MS = 15_000;

export function kafkaInput(context: FlowContext, source: SourceDataset, connector: OffsetStreamConnector): StreamInput {
  const { flow, session } = context;
  let stream: OffsetStream | undefined;
  let deadLetters: DeadLetterSink | undefined;
  const learned = new LearnedColumns(narrowing(context, source));
  const readAhead = new ReadAhead();
  const deadLetterTable = deadLetterTableOf(context, source);
  const landDeadLetters = async (letters: readonly DeadLetterCandidate[], ranges: readonly PositionRange[]): Promise<void> => {
    deadLetters ??= new DeadLetterSink({
      catalog: context.catalog,
      io: context.catalog.tableIO?.(deadLetterTable) ?? context.io,
      session,
      deadLetterTarget: deadLetterTable,
      tempDir: context.tempDir,
      ...(context.commitNotice === undefined ? {} : { onNotice: context.commitNotice }),
    });
    await deadLetters.land(letters, ranges);
  };
  return {
    name: source.name,
    positionKind: 'offsets',
    async round(position, limits) {
      stream ??= await connector.open(source, `${context.graph.name}.${flow.name}`);
      // A read started ahead in the round before ends before the bounds are read: the stream takes one call at a time.
      await readAhead.settle();
      const bounds = await stream.bounds();
      const stored = new Map((position?.kind === 'offsets' ? position.offsets : []).map((p) => [topicPartitionKey(p), p.nextOffset]));
      const cursor = new Map<string, SourcePosition>();
      const ends = new Map<string, bigint>();
      for (const b of bounds) {
        const key = topicPartitionKey(b);
        const latest = source.source.format === 'kafka' && source.source.startingOffsets === 'latest';
        // Latest is the end when this process first looked, so a long-running one reads what arrives after it.
        const from = stored.get(key) ?? (latest ? (stream.endWhenOpened?.(b) ?? b.high) : b.low);
        checkInLog(context, source, b, from, stored.has(key));
        cursor.set(key, { topic: b.topic, partition: b.partition, nextOffset: from });
        ends.set(key, b.high);
      }
      stream.at?.([...cursor.values()]);
      const exhausted = new Set<string>();
      const left = (): SourcePosition[] => [...cursor].filter(([key, p]) => !exhausted.has(key) && p.nextOffset < (ends.get(key) ?? 0n)).map(([, p]) => p);
      // Nothing read before and nothing to read: the input gives no columns yet.
      if (position === undefined && left().length === 0) return undefined;
      const openStream = stream;
      // A stop ends a read that waits for records at once: the batch takes what came (or ends the round).
      const readLimits = { maxBytes: limits.maxBytes ?? DEFAULT_KAFKA_BATCH_BYTES, idleMs: IDLE_MS, ...(context.signal === undefined ? {} : { signal: context.signal }) };
      const batchRanges = (): PositionRange[] => nextRanges(left(), ends, topicPartitionKey, limits.maxRows ?? DEFAULT_KAFKA_BATCH_RECORDS);
      /** The batch staged last: its records, the dead letters it has so far and the ranges it covers. */
      let staged: { records: readonly JsonRecord[]; letters: DeadLetterCandidate[]; covered: PositionRange[] } | undefined;
      const round: InputRound = {
        hasMore: () => left().length > 0,
        async stageNext(relation) {
          const ranges = batchRanges();
          const read = ranges.length === 0 ? { records: [], deadLetters: [], skipped: 0, reached: [] } : await readAhead.take(openStream, ranges, readLimits);
          const covered: PositionRange[] = [];
          for (const reached of read.reached) {
            const before = cursor.get(topicPartitionKey(reached))?.nextOffset ?? reached.nextOffset;
            if (reached.nextOffset > before) covered.push({ topic: reached.topic, partition: reached.partition, firstOffset: before, nextOffset: reached.nextOffset });
            cursor.set(topicPartitionKey(reached), reached);
          }
          // A read that stopped on the byte bound leaves some partitions for the next batch; one that
          // got nothing at all although the end offsets promised more (records past an open
          // transaction) ends the round where it stands.
          if (covered.length === 0) for (const r of ranges) exhausted.add(topicPartitionKey(r));
          stream?.at?.([...cursor.values()]);
          const records: JsonRecord[] = [];
          const letters: DeadLetterCandidate[] = [...read.deadLetters];
          for (const record of read.records) {
            // A checked JSON value has no reserved field (json-object-check.ts).
            const reserved = record.stagedLine !== undefined || record.json !== undefined ? undefined : reservedFieldOf(record.value);
            if (reserved === undefined) records.push(record);
            else letters.push(flowFailureToDeadLetter({ record, reason: `the value has a field named ${reserved}, a column reserved for the record's coordinates` }));
          }
          const batch = await stageBatch(context, source, relation, records, read.valueTypes, learned);
          letters.push(...batch.misfits);
          staged = { records, letters, covered };
          readAhead.start(openStream, batchRanges(), readLimits);
          return batch.rows;
        },
        position: () => ({ kind: 'offsets', offsets: [...cursor.values()] }),
        reject(failures) {
          if (staged === undefined) return;
          const failed = new Map(failures.map((f) => [`${f.topic}\u0000${f.partition}\u0000${f.offset}`, f.reason]));
          for (const record of staged.records) {
            const reason = failed.get(`${record.topic}\u0000${record.partition}\u0000${record.offset}`);
            if (reason !== undefined) staged.letters.push(flowFailureToDeadLetter({ record, reason: `flow ${flow.name}: ${reason}` }));
          }
        },
        async landDeadLetters() {
          const batch = staged;
          staged = undefined;
          if (batch === undefined || batch.letters.length === 0) return 0;
          await landDeadLetters(batch.letters, batch.covered);
          return batch.letters.length;
        },
      };
      return round;
    },
    async close() {
      await readAhead.drop();
      await stream?.close();
      stream = undefined;
    },
  };
}

/**
 * The batch's rows as table `relation`, Avro fields typed by their writer schemas, cast to the source's declared schema when it has one (the
 * records whose values do not fit come back as dead letters); an empty batch keeps the columns of
 * the one before it.
 */
async function stageBatch(
  context: FlowContext,
  source: SourceDataset,
  relation: string,
  records: readonly JsonRecord[],
  valueTypes: ReadonlyMap<string, string> | undefined,
  learned: LearnedColumns,
): Promise<{ rows: number; misfits: DeadLetterCandidate[] }> {
  const { session } = context;
  const table = quoteIdentifier(relation);
  if (records.length === 0) {
    const [exists] = await session.queryJson(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = ${quoteLiteral(relation)} AND NOT temporary`);
    if (Number(exists?.['n'] ?? 0) > 0) await session.run(`DELETE FROM ${table}`);
    else {
      const coordinates = `NULL::VARCHAR AS _kafka_topic, NULL::INTEGER AS _kafka_partition, NULL::BIGINT AS _kafka_offset, NULL::TIMESTAMP AS _kafka_timestamp, NULL::VARCHAR AS _kafka_key, NULL::STRUCT(key VARCHAR, value VARCHAR)[] AS ${HEADERS_COLUMN}`;
      await session.run(`CREATE OR REPLACE TABLE ${table} AS SELECT ${coordinates} LIMIT 0`);
      if (source.schema !== undefined) await applyDeclaredColumns(session, relation, source.schema);
    }
    return { rows: 0, misfits: [] };
  }
  // Fields the writer schemas type (Avro logical types) are read as those types; the others as DuckDB
  // detects them, which takes a pass over the batch only when it has such fields.
  const staging = { session, records, table: relation, tempDir: context.tempDir };
  if (valueTypes === undefined) await learned.stage(staging);
  else await stageRecords({ ...staging, columns: valueTypes, readOtherFields: hasFieldsOutside(records, valueTypes.keys()) });
  if (source.schema === undefined) return { rows: records.length, misfits: [] };
  const misfitRows = await applyDeclaredColumns(session, relation, source.schema);
  const byPosition = new Map(records.map((r) => [`${r.partition}/${r.offset}`, r]));
  const misfits = misfitRows.flatMap((m) => {
    const record = byPosition.get(`${m.partition}/${m.offset}`);
    return record === undefined ? [] : [{ ...flowFailureToDeadLetter({ record, reason: `${m.reason} (source ${source.name}'s schema)` }), code: SCHEMA_MISFIT }];
  });
  return { rows: records.length - misfits.length, misfits };
}

/**
 * The learned columns a batch is read with, narrowed to the struct fields the flow's SQL reads
 * (struct-fields-read.ts). Not for a source with a declared schema (its columns are cast whole)
 * or a watermark of the source or the flow (its column is read apart from the flow's SQL).
 */
function narrowing(context: FlowContext, source: SourceDataset): ((columns: ReadonlyMap<string, string>) => Promise<ReadonlyMap<string, string>>) | undefined {
  if (source.schema !== undefined || source.watermark !== undefined || context.flow.streaming.watermark !== undefined) return undefined;
  const { session, flow } = context;
  return async (columns) => {
    const read = await structFieldsRead(session, flow.query.text, [...columns.keys(), ...RECORD_COLUMNS, HEADERS_COLUMN]);
    return read === undefined ? columns : narrowedColumns(session, columns, read);
  };
}

/** Dead-letter code of a record whose value does not fit the source's declared schema. */
export const SCHEMA_MISFIT = 'SCHEMA_MISFIT';

/** Refuses a position the log no longer (or never) had: records lost to retention, or a recreated topic. */
function checkInLog(context: FlowContext, source: SourceDataset, bounds: PartitionOffsets, from: bigint, fromCheckpoint: boolean): void {
  if (!fromCheckpoint) return;
  const where = `${formatOrigin(context.flow.origin)}: flow ${context.flow.name}: Kafka source ${source.name}, partition ${bounds.topic}/${bounds.partition}`;
  const ctx = { flow: context.flow.name, source: source.name, topic: bounds.topic, partition: bounds.partition };
  if (from < bounds.low) {
    throw new InvalidInputError(`${where}: records from offset ${from} to ${bounds.low - 1n} were deleted (retention) before this flow read them; run with --full-refresh to start over from the earliest offset`, { context: ctx });
  }
  if (from > bounds.high) {
    throw new InvalidInputError(`${where}: the checkpoint's position ${from} is beyond the end of the log (${bounds.high}); was the topic deleted and recreated? Run with --full-refresh to start over`, { context: ctx });
  }
}

/** The source's dead-letter table: its `dead_letter_table` option, or `<the flow's namespace>.<source>_dead_letters`. */
function deadLetterTableOf(context: FlowContext, source: SourceDataset): TableIdentifier {
  const named = source.source.format === 'kafka' ? source.source.options['dead_letter_table'] : undefined;
  if (named !== undefined) {
    const parts = named.split('.');
    return { namespace: parts.slice(0, -1), name: parts[parts.length - 1] as string };
  }
  return { namespace: [...context.target.table.identifier.namespace], name: `${source.name}_dead_letters` };
}
