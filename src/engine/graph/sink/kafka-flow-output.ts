/**
 * One flow's connection to its Kafka sink for a run: a transactional producer (opened first, so
 * older producers of the flow are fenced and their open transactions aborted), then, for flows
 * that keep positions, the checkpoint topic (created when missing) and the flow's last committed
 * checkpoint record. Each publish is one transaction holding the rows and, when given, the flow's
 * new checkpoint record.
 */
import { KafkaCheckpointTopic } from '../../../../connectors/kafka/checkpoint-topic.js';
import { KafkaJsProducerClient } from '../../../../connectors/kafka/kafkajs-producer-client.js';
import { relationRecords } from '../../../../connectors/kafka/relation-records.js';
import { TransactionalPublisher } from '../../../../connectors/kafka/transactional-publisher.js';
import { DEFAULT_SEND_LIMITS } from '../../../../connectors/kafka/record-batches.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { Checkpoint } from '../streaming/checkpoint-store.js';
import type { KafkaSinkSettings } from './kafka-sink-settings.js';
import { checkpointKey, decodeCheckpoint, encodeCheckpoint, type StreamPositions } from './sink-checkpoint.js';
import type { ProducerClientFactory } from './sink-flow-context.js';

export interface OutputOpening {
  readonly pipeline: string;
  readonly flowName: string;
  readonly settings: KafkaSinkSettings;
  /** The flow writes checkpoint records (the checkpoint topic is created when missing). */
  readonly checkpointed: boolean;
  /** Read the last one (not on a full refresh, which starts over). */
  readonly restore: boolean;
  readonly producerClient?: ProducerClientFactory;
}

export interface NextCheckpoint {
  readonly batches: number;
  readonly positions: StreamPositions;
}

export class KafkaFlowOutput {
  private constructor(
    private readonly publisher: TransactionalPublisher,
    private readonly opening: OutputOpening,
    /** The last committed checkpoint record; undefined when there is none or it was not read. */
    readonly restored: Checkpoint | undefined,
  ) {}

  static async open(opening: OutputOpening): Promise<KafkaFlowOutput> {
    const { settings } = opening;
    const { publish } = settings;
    const client = (opening.producerClient ?? ((options) => new KafkaJsProducerClient(options)))(publish);
    const publisher = new TransactionalPublisher(client, publish.topic, {
      records: publish.batchRecords ?? DEFAULT_SEND_LIMITS.records,
      bytes: publish.batchBytes ?? DEFAULT_SEND_LIMITS.bytes,
    });
    try {
      await publisher.open();
      const restored = opening.checkpointed ? await readCheckpoint(opening) : undefined;
      return new KafkaFlowOutput(publisher, opening, restored);
    } catch (error) {
      await publisher.close();
      throw error;
    }
  }

  get topic(): string {
    return this.opening.settings.publish.topic;
  }

  /** Publishes every row of `relation` (and the checkpoint record) in one transaction; returns the record count. */
  async publish(session: DuckDbSession, relation: string, next?: NextCheckpoint): Promise<number> {
    const { pipeline, flowName, settings } = this.opening;
    const extra =
      next === undefined
        ? []
        : [{ topic: settings.checkpointTopic, records: [{ key: Buffer.from(checkpointKey(pipeline, flowName), 'utf8'), value: encodeCheckpoint(flowName, next.batches, next.positions), headers: [] }] }];
    const outcome = await this.publisher.publish(relationRecords(session, relation, settings.publish), extra);
    return outcome.records;
  }

  async close(): Promise<void> {
    await this.publisher.close();
  }
}

async function readCheckpoint(opening: OutputOpening): Promise<Checkpoint | undefined> {
  const { settings, pipeline, flowName } = opening;
  const topic = new KafkaCheckpointTopic(settings.checkpointTopic, {
    brokers: settings.publish.brokers,
    ...(settings.publish.connection === undefined ? {} : { connection: settings.publish.connection }),
  });
  await topic.ensure();
  if (!opening.restore) return undefined;
  const key = checkpointKey(pipeline, flowName);
  const value = await topic.latest(key);
  return value === undefined ? undefined : decodeCheckpoint(flowName, value, `in topic ${settings.checkpointTopic} under key ${key}`);
}
