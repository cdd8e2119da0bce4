/**
 * @confluentinc/kafka-javascript (librdkafka): its native API's consume(n) batches, auto-commit off,
 * from the earliest offset, librdkafka's fetch and prefetch settings at their defaults. Batches of
 * 100 or 10,000 cost as much CPU as 1,000: the time goes into making each message's JavaScript
 * object on the main thread, not into librdkafka's threads.
 */
import { importClient } from './clients.js';
import type { ConsumeLoop } from './consume-loop.js';

const BATCH = 1_000;

interface RdKafka {
  readonly default: { readonly KafkaConsumer: new (global: Record<string, string | boolean>, topic: Record<string, string>) => RdKafkaConsumer };
}

interface RdKafkaConsumer {
  connect(options: object, callback: (error: Error | null) => void): void;
  setDefaultConsumeTimeout(ms: number): void;
  subscribe(topics: string[]): void;
  consume(count: number, callback: (error: Error | null, messages: ReadonlyArray<{ value: Buffer | null }>) => void): void;
  disconnect(callback: () => void): void;
}

export const confluentLoop: ConsumeLoop = async (target, tally) => {
  const { KafkaConsumer } = (await importClient<RdKafka>('confluent')).default;
  const consumer = new KafkaConsumer(
    { 'group.id': target.groupId, 'client.id': 'bench-kafka-clients', 'metadata.broker.list': target.brokers.join(','), 'enable.auto.commit': false },
    { 'auto.offset.reset': 'earliest' },
  );
  await new Promise<void>((resolve, reject) => consumer.connect({}, (error) => (error ? reject(error) : resolve())));
  consumer.setDefaultConsumeTimeout(250);
  consumer.subscribe([target.topic]);
  const failed = new Promise<never>((_, reject) => {
    const next = (): void =>
      consumer.consume(BATCH, (error, messages) => {
        if (error) return reject(error);
        for (const message of messages) tally.add(message.value);
        if (!tally.complete) next();
      });
    next();
  });
  await Promise.race([tally.done, failed]);
  await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
};
