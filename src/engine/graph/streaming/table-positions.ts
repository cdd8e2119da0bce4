/**
 * The Kafka positions a table has committed: the value of the positions key in the newest
 * snapshot of the main branch's ancestry that carries it (ICEBERG.md §8), as a map per
 * topic-partition. A table without such a snapshot has committed nothing.
 */
import {
  KAFKA_OFFSETS_SUMMARY_KEY,
  positionsFromSummary,
  topicPartitionKey,
  type SourcePosition,
  type TopicPartition,
} from '../../../../connectors/streaming-source.js';
import { ancestorsOf } from '../../../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type TableMetadata } from '../../../iceberg/table-metadata.js';

export class TablePositions {
  private readonly byKey: ReadonlyMap<string, SourcePosition>;

  constructor(readonly list: readonly SourcePosition[]) {
    this.byKey = new Map(list.map((p) => [topicPartitionKey(p), p]));
  }

  static none(): TablePositions {
    return new TablePositions([]);
  }

  static of(metadata: TableMetadata | undefined, key: string = KAFKA_OFFSETS_SUMMARY_KEY): TablePositions {
    if (metadata === undefined) return TablePositions.none();
    for (const snapshot of ancestorsOf(metadata, metadata.refs.get(MAIN_BRANCH)?.snapshotId)) {
      if (snapshot.summary[key] !== undefined) return new TablePositions(positionsFromSummary(snapshot.summary, key));
    }
    return TablePositions.none();
  }

  /** The next offset the table expects for a partition, or null when it has none. */
  of(tp: TopicPartition): bigint | null {
    return this.byKey.get(topicPartitionKey(tp))?.nextOffset ?? null;
  }

  /** Positions of these partitions (those the table knows). */
  only(partitions: readonly TopicPartition[]): SourcePosition[] {
    return partitions.flatMap((tp) => {
      const p = this.byKey.get(topicPartitionKey(tp));
      return p === undefined ? [] : [p];
    });
  }
}
