/**
 * ConsumerClient whose kafkajs consumer runs in a worker thread (kafka-consumer-worker.ts): the
 * main thread receives packed batches and spends no time in kafkajs's decoding or its garbage.
 * Handlers run on the main thread in the order the worker's events arrive; commands (seek, pause,
 * resume) reach the worker in the order they are made.
 */
import { Worker } from 'node:worker_threads';
import { topicPartitionKey, type TopicPartition } from '../streaming-source.js';
import type { ConsumerClient, ConsumerHandlers, PartitionBounds } from './consumer-client.js';
import { fromWorkerError, type FromWorker, type ToWorker, type WorkerConsumerOptions } from './kafka-worker-messages.js';
import { packedBytes, unpackBatch } from './packed-batch.js';
import { registerSaslSecrets } from './sasl-secrets.js';

const STOP_TIMEOUT_MS = 30_000;
/**
 * kafkajs's garbage dies young, so a young generation half V8's default keeps the worker's share
 * of the service's memory down without more CPU (measured with bench/kafka).
 */
const WORKER_YOUNG_GENERATION_MB = 24;

export class WorkerConsumerClient implements ConsumerClient {
  private worker: Worker | undefined;
  private handlers: ConsumerHandlers | undefined;
  private readonly epochs = new Map<string, number>();
  private readonly boundsRequests = new Map<number, { resolve: (bounds: readonly PartitionBounds[]) => void; reject: (error: Error) => void }>();
  private nextRequest = 0;
  private starting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private stopped: (() => void) | undefined;
  private stopping = false;

  constructor(private readonly options: WorkerConsumerOptions) {
    // The worker builds the client (and registers there); its errors come back to this thread as text.
    registerSaslSecrets(options.connection);
  }

  start(topics: readonly string[], handlers: ConsumerHandlers): Promise<void> {
    this.handlers = handlers;
    const worker = spawnWorker();
    this.worker = worker;
    worker.on('message', (message: FromWorker) => this.receive(message));
    worker.on('error', (error) => this.failed(error));
    worker.on('exit', (code) => {
      this.worker = undefined;
      this.stopped?.();
      if (!this.stopping) this.failed(new Error(`the Kafka consumer's worker thread exited (code ${code})`));
    });
    return new Promise((resolve, reject) => {
      this.starting = { resolve, reject };
      this.send({ kind: 'start', topics, options: this.options });
    });
  }

  seek(tp: TopicPartition, offset: bigint): void {
    const key = topicPartitionKey(tp);
    const epoch = (this.epochs.get(key) ?? 0) + 1;
    this.epochs.set(key, epoch);
    this.send({ kind: 'seek', tp: { topic: tp.topic, partition: tp.partition }, offset, epoch });
  }

  pause(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.send({ kind: 'pause', partitions: partitions.map(plain) });
  }

  resume(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.send({ kind: 'resume', partitions: partitions.map(plain) });
  }

  partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    return new Promise((resolve, reject) => {
      const id = ++this.nextRequest;
      this.boundsRequests.set(id, { resolve, reject });
      this.send({ kind: 'bounds', id, topic });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => (this.stopped = resolve));
    worker.postMessage({ kind: 'stop' } satisfies ToWorker);
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private receive(message: FromWorker): void {
    const handlers = this.handlers;
    if (handlers === undefined) return;
    switch (message.kind) {
      case 'started':
        this.starting?.resolve();
        this.starting = undefined;
        return;
      case 'failed':
        if (message.during === 'start') {
          // Nothing runs: the worker goes, and start() rejects with the reason.
          this.stopping = true;
          void this.worker?.terminate();
        }
        this.failed(fromWorkerError(message.error));
        return;
      case 'assignment':
        handlers.onAssignment(message.partitions);
        this.send({ kind: 'assignment-handled', generation: message.generation });
        return;
      case 'batch': {
        this.send({ kind: 'received', bytes: packedBytes(message.batch) });
        const key = topicPartitionKey(message.batch);
        handlers.onBatch(unpackBatch(message.batch), () => message.batch.epoch !== (this.epochs.get(key) ?? 0));
        return;
      }
      case 'bounds': {
        const request = this.boundsRequests.get(message.id);
        this.boundsRequests.delete(message.id);
        if (message.bounds !== undefined) request?.resolve(message.bounds);
        else request?.reject(message.error === undefined ? new Error('no partition bounds') : fromWorkerError(message.error));
        return;
      }
      case 'stopped':
        void this.worker?.terminate();
        return;
    }
  }

  private failed(error: Error): void {
    if (this.starting !== undefined) {
      this.starting.reject(error);
      this.starting = undefined;
    } else if (!this.stopping) this.handlers?.onFailure(error);
    for (const request of this.boundsRequests.values()) request.reject(error);
    this.boundsRequests.clear();
  }

  private send(message: ToWorker): void {
    if (this.worker === undefined) throw new Error('Kafka consumer is not started');
    this.worker.postMessage(message);
  }
}

const plain = (tp: TopicPartition): TopicPartition => ({ topic: tp.topic, partition: tp.partition });

/** The worker's module beside this one: compiled JavaScript, or TypeScript registered with tsx (tests, benchmarks). */
function spawnWorker(): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  // No inherited node options: some (e.g. --input-type) are refused in a worker, and V8's are process-wide anyway.
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./kafka-consumer-worker.js', import.meta.url), { resourceLimits, execArgv: [] });
  const source = JSON.stringify(new URL('./kafka-consumer-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${source}); });`, { eval: true, resourceLimits });
}
