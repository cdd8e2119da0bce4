/**
 * The transactional publisher against a recording fake producer: open() fences (an empty
 * transaction registers the id), a publish sends rows and the extra checkpoint record inside the
 * same transaction and commits once; a failing send aborts and sends no commit; a missing topic is
 * refused naming it and the brokers.
 */
import { describe, expect, it } from 'vitest';
import { KafkaSinkError } from '../../../../../connectors/kafka/kafka-sink-error.js';
import type { OutgoingRecord, ProducerClient, ProducerTransaction } from '../../../../../connectors/kafka/producer-client.js';
import { TransactionalPublisher } from '../../../../../connectors/kafka/transactional-publisher.js';

class RecordingProducer implements ProducerClient {
  readonly brokers = ['b1:9092'];
  readonly log: string[] = [];
  failSendTo: string | undefined;

  constructor(private readonly topics: Record<string, number>) {}
  async connect(): Promise<void> {
    this.log.push('connect');
  }
  async partitionCount(topic: string): Promise<number | undefined> {
    return this.topics[topic];
  }
  async send(): Promise<void> {
    throw new Error('non-transactional send');
  }
  async beginTransaction(): Promise<ProducerTransaction> {
    this.log.push('begin');
    return {
      send: async (topic, records) => {
        if (topic === this.failSendTo) throw new Error(`broker refused ${topic}`);
        this.log.push(`send ${topic} ${records.map((r) => r.value.toString()).join(',')}`);
      },
      commit: async () => void this.log.push('commit'),
      abort: async () => void this.log.push('abort'),
    };
  }
  async disconnect(): Promise<void> {
    this.log.push('disconnect');
  }
}

const record = (value: string): OutgoingRecord => ({ key: null, value: Buffer.from(value), headers: [] });

describe('TransactionalPublisher', () => {
  it('fences on open and publishes rows and the checkpoint record in one transaction', async () => {
    const client = new RecordingProducer({ out: 1, positions: 1 });
    const publisher = new TransactionalPublisher(client, 'out', { records: 2, bytes: 1_000 });
    await publisher.open();
    const outcome = await publisher.publish([[record('a'), record('b'), record('c')]], [{ topic: 'positions', records: [record('p1')] }]);
    await publisher.close();
    expect(outcome).toEqual({ records: 3, sends: 2 });
    expect(client.log).toEqual(['connect', 'begin', 'abort', 'begin', 'send out a,b', 'send out c', 'send positions p1', 'commit', 'disconnect']);
  });

  it('aborts when a send fails: no commit, an error naming topic and brokers', async () => {
    const client = new RecordingProducer({ out: 1, positions: 1 });
    client.failSendTo = 'positions';
    const publisher = new TransactionalPublisher(client, 'out');
    await publisher.open();
    const publishing = publisher.publish([[record('a')]], [{ topic: 'positions', records: [record('p1')] }]);
    await expect(publishing).rejects.toThrow(KafkaSinkError);
    await expect(publishing).rejects.toThrow('Publishing to Kafka topic "out" on brokers b1:9092 failed: the transaction was aborted after 1 records; none of them is visible to read_committed consumers: broker refused positions');
    expect(client.log.slice(3)).toEqual(['begin', 'send out a', 'abort']);
  });

  it('refuses a topic the brokers do not know', async () => {
    const publisher = new TransactionalPublisher(new RecordingProducer({}), 'missing');
    await expect(publisher.open()).rejects.toThrow('Kafka topic "missing" does not exist on brokers b1:9092; create it first (the sink does not create topics)');
    await publisher.close();
  });
});
