/** kafkajs: eachBatch, auto-commit off, from the earliest offset. */
import { Kafka, logLevel } from 'kafkajs';
import type { ConsumeLoop } from './consume-loop.js';

export const kafkajsLoop: ConsumeLoop = async (target, tally) => {
  const kafka = new Kafka({ clientId: 'bench-kafka-clients', brokers: [...target.brokers], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: target.groupId, maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topics: [target.topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) tally.add(message.value);
    },
  });
  await tally.done;
  await consumer.disconnect();
};
