/**
 * The worker thread of WorkerConsumerClient: runs the kafkajs consumer and posts each fetched
 * batch packed (packed-batch.ts), so that kafkajs's decoding and its garbage stay off the main
 * thread. The main thread's assignment handler cannot run synchronously inside kafkajs's
 * GROUP_JOIN here, so every newly assigned partition is held paused until the main thread says it
 * has handled that assignment; its seeks and pauses arrive before that message and apply first.
 * Seeks are numbered per partition (epochs): a batch carries the epoch it was fetched under, so
 * the main thread recognises batches that a later seek made stale. Fetching waits while more
 * than MAX_UNRECEIVED_BYTES of posted batches have not reached the main thread, so a busy main
 * thread cannot let batches pile up in the channel.
 */
import { parentPort } from 'node:worker_threads';
import type { Consumer, Kafka } from 'kafkajs';
import { topicPartitionKey, type TopicPartition } from '../streaming-source.js';
import { byTopic } from './consumer-client.js';
import { workerError, type FromWorker, type ToWorker, type WorkerConsumerOptions } from './kafka-worker-messages.js';
import { kafkaJs, kafkaJsConsumer, kafkaJsPartitionBounds, runKafkaJsConsumer } from './kafkajs-consumer.js';
import { installFastRecordBatchDecoder } from './kafkajs-fast-records.js';
import { packBatch, packedBytes, transferables } from './packed-batch.js';
import { batchLines } from './worker-line-packers.js';

const port = parentPort;
if (port === null) throw new Error('kafka-consumer-worker.ts runs only as a worker thread');
installFastRecordBatchDecoder();

let kafka: Kafka | undefined;
let consumer: Consumer | undefined;
let stopping = false;
let generation = 0;
const epochs = new Map<string, number>();
/** Partitions the main thread wants paused. */
const pausedByMain = new Set<string>();
/** Newly assigned partitions held paused until the main thread has handled their assignment. */
let held = new Map<string, TopicPartition>();
const MAX_UNRECEIVED_BYTES = 8 * 1024 * 1024;
let unreceivedBytes = 0;
let received: (() => void) | undefined;

const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

port.on('message', (message: ToWorker) => {
  try {
    handle(message);
  } catch (error) {
    post({ kind: 'failed', during: 'run', error: workerError(error) });
  }
});

function handle(message: ToWorker): void {
  switch (message.kind) {
    case 'start':
      void start(message.topics, message.options);
      return;
    case 'seek':
      epochs.set(topicPartitionKey(message.tp), message.epoch);
      running().seek({ topic: message.tp.topic, partition: message.tp.partition, offset: message.offset.toString() });
      return;
    case 'pause':
    case 'resume': {
      const pause = message.kind === 'pause';
      for (const tp of message.partitions) {
        if (pause) pausedByMain.add(topicPartitionKey(tp));
        else pausedByMain.delete(topicPartitionKey(tp));
      }
      const free = message.partitions.filter((tp) => !held.has(topicPartitionKey(tp)));
      if (free.length > 0) running()[message.kind](byTopic(free));
      return;
    }
    case 'assignment-handled': {
      if (message.generation !== generation) return;
      const release = [...held].filter(([key]) => !pausedByMain.has(key)).map(([, tp]) => tp);
      held = new Map();
      if (release.length > 0) running().resume(byTopic(release));
      return;
    }
    case 'bounds':
      kafkaJsPartitionBounds(started(), message.topic).then(
        (bounds) => post({ kind: 'bounds', id: message.id, bounds }),
        (error: unknown) => post({ kind: 'bounds', id: message.id, error: workerError(error) }),
      );
      return;
    case 'received':
      unreceivedBytes -= message.bytes;
      received?.();
      return;
    case 'stop':
      void stop();
      received?.();
      return;
  }
}

async function start(topics: readonly string[], options: WorkerConsumerOptions): Promise<void> {
  try {
    kafka = kafkaJs(options);
    const created = kafkaJsConsumer(kafka, options, {
      onGroupJoin: (assignment) => {
        generation++;
        held = new Map(assignment.map((tp) => [topicPartitionKey(tp), tp]));
        if (assignment.length > 0) created.pause(byTopic(assignment));
        post({ kind: 'assignment', generation, partitions: assignment });
      },
      onCrash: (error) => {
        if (!stopping) post({ kind: 'failed', during: 'run', error: workerError(error) });
      },
    });
    consumer = created;
    const linesOf = batchLines(options);
    await runKafkaJsConsumer(created, topics, async (batch, isStale, heartbeat) => {
      if (isStale()) return;
      // The epoch the batch was fetched under, whatever seeks arrive while its lines are prepared.
      const epoch = epochs.get(topicPartitionKey(batch)) ?? 0;
      const packed = packBatch(batch, epoch, await linesOf(batch));
      unreceivedBytes += packedBytes(packed);
      post({ kind: 'batch', batch: packed }, transferables(packed));
      while (unreceivedBytes > MAX_UNRECEIVED_BYTES && !stopping) {
        await new Promise<void>((resolve) => {
          received = resolve;
          setTimeout(resolve, 1_000);
        });
        received = undefined;
        await heartbeat();
      }
    });
    post({ kind: 'started' });
  } catch (error) {
    post({ kind: 'failed', during: 'start', error: workerError(error) });
  }
}

async function stop(): Promise<void> {
  stopping = true;
  try {
    await consumer?.disconnect();
  } finally {
    consumer = undefined;
    post({ kind: 'stopped' });
  }
}

function started(): Kafka {
  if (kafka === undefined) throw new Error('Kafka consumer is not started');
  return kafka;
}

function running(): Consumer {
  if (consumer === undefined) throw new Error('Kafka consumer is not started');
  return consumer;
}
