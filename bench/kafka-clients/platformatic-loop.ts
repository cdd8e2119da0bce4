/**
 * @platformatic/kafka: the consumer's message stream (it has no batch API), auto-commit off,
 * earliest offset, fetch sizes as kafkajs's defaults (with its own, 50 MB per partition, it held
 * 565 MiB RSS and took twice the CPU). Version 2 wants Node 22 (engines >= 22.22); on Node 20 it
 * lacks only Promise.withResolvers, which this benchmark supplies so the client can be measured.
 */
import { importClient } from './clients.js';
import type { ConsumeLoop } from './consume-loop.js';

interface PlatformaticKafka {
  readonly Consumer: new (options: { clientId: string; groupId: string; bootstrapBrokers: string[] }) => PlatformaticConsumer;
}

interface PlatformaticConsumer {
  consume(options: { topics: string[]; mode: 'earliest'; autocommit: boolean; maxWaitTime: number; maxBytes: number; maxBytesPerPartition: number }): Promise<MessagesStream>;
  close(force: boolean): Promise<void>;
}

interface MessagesStream {
  on(event: 'data', listener: (message: { value: Buffer | undefined }) => void): void;
  close(): Promise<void>;
}

export const platformaticLoop: ConsumeLoop = async (target, tally) => {
  supplyPromiseWithResolvers();
  const { Consumer } = await importClient<PlatformaticKafka>('platformatic');
  const consumer = new Consumer({ clientId: 'bench-kafka-clients', groupId: target.groupId, bootstrapBrokers: [...target.brokers] });
  const stream = await consumer.consume({ topics: [target.topic], mode: 'earliest', autocommit: false, maxWaitTime: 250, maxBytes: 10 * 1024 * 1024, maxBytesPerPartition: 1024 * 1024 });
  stream.on('data', (message) => tally.add(message.value));
  await tally.done;
  await stream.close();
  await consumer.close(true);
};

function supplyPromiseWithResolvers(): void {
  const promise = Promise as unknown as { withResolvers?: () => unknown };
  promise.withResolvers ??= () => {
    let resolve: unknown;
    let reject: unknown;
    const created = new Promise((yes, no) => ((resolve = yes), (reject = no)));
    return { promise: created, resolve, reject };
  };
}
