/**
 * The Kafka positions of a streaming flow live in its table's snapshot summaries, one key per
 * flow and source (`thund.kafka.offsets.<flow>.<source>`: the next offset per topic and
 * partition), committed with the batch that reached them. The fencing rule (DESIGN.md) is per
 * partition: a batch commits only while the table still holds, for every partition the batch
 * read, the position the batch started from; the attempt's summary then holds the table's
 * positions merged with the batch's (the higher offset wins), so the partitions other processes
 * of a consumer group own are carried, never moved back.
 *
 * Positions the table has under no such key are read once from where earlier versions kept them:
 * the flow's checkpoint (`offsets`), or `thund.kafka.offsets` of a table `thund serve --topic`
 * landed. The first commit writes the flow's own key.
 */
import {
  KAFKA_OFFSETS_SUMMARY_KEY,
  mergePositions,
  positionsToSummaryValue,
  topicPartitionKey,
  type SourcePosition,
  type TopicPartition,
} from '../../../../connectors/streaming-source.js';
import type { TableMetadata } from '../../../iceberg/table-metadata.js';
import { TablePositions } from './table-positions.js';

export const kafkaOffsetsKey = (flowName: string, sourceName: string): string => `${KAFKA_OFFSETS_SUMMARY_KEY}.${flowName}.${sourceName}`;

/** What the table holds for a flow's Kafka source under the flow's own key. */
export function committedOffsets(metadata: TableMetadata | undefined, flowName: string, sourceName: string): TablePositions {
  return TablePositions.of(metadata, kafkaOffsetsKey(flowName, sourceName));
}

/** Positions `thund serve --topic` committed to the table before pipelines took it over. */
export function legacyServeOffsets(metadata: TableMetadata | undefined): readonly SourcePosition[] {
  return TablePositions.of(metadata).list;
}

/** One Kafka source's part of a batch: where its partitions started (the table's positions then) and where the batch leaves them. */
export interface OffsetAdvance {
  readonly source: string;
  /** Each partition the batch read from, with the table's position it started from (null: none). */
  readonly read: readonly { readonly tp: TopicPartition; readonly basis: bigint | null }[];
  /** Every partition's position after the batch. */
  readonly after: readonly SourcePosition[];
  /** Replace the table's positions instead of merging (the first batch of a full refresh). */
  readonly replace: boolean;
}

/** The advance of one source from `before` to `after` (positions as the round holds them), checked against `basis`. */
export function offsetAdvance(source: string, before: readonly SourcePosition[], after: readonly SourcePosition[], basis: TablePositions, replace: boolean): OffsetAdvance {
  const started = new Map(before.map((p) => [topicPartitionKey(p), p.nextOffset]));
  const read = after.filter((p) => p.nextOffset !== started.get(topicPartitionKey(p))).map((p) => ({ tp: { topic: p.topic, partition: p.partition }, basis: basis.of(p) }));
  return { source, read, after, replace };
}

/** The partitions whose committed position moved away from the batch's basis; empty when the batch may commit. */
export function movedPartitions(current: TableMetadata, flowName: string, advance: OffsetAdvance): string[] {
  const now = committedOffsets(current, flowName, advance.source);
  const moved: string[] = [];
  for (const { tp, basis } of advance.read) {
    const held = now.of(tp);
    if (held !== basis) moved.push(`${tp.topic}/${tp.partition} at ${held ?? 'none'}, expected ${basis ?? 'none'}`);
  }
  return moved;
}

/** The summary entry of an attempt built on `current`. */
export function offsetsSummaryEntry(current: TableMetadata, flowName: string, advance: OffsetAdvance): [string, string] {
  const merged = advance.replace ? advance.after : mergePositions(committedOffsets(current, flowName, advance.source).list, advance.after);
  return [kafkaOffsetsKey(flowName, advance.source), positionsToSummaryValue(merged)];
}
