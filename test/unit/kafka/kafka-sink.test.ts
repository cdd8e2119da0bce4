import { describe, expect, it } from 'vitest';
import { KafkaSink } from '../../../connectors/kafka/kafka-sink.js';
import { KafkaSinkError } from '../../../connectors/kafka/kafka-sink-error.js';
import type { OutgoingRecord, ProducerClient, ProducerTransaction } from '../../../connectors/kafka/producer-client.js';
import { resolveLayout } from '../../../connectors/kafka/record-layout.js';
import { rowRecord, rowRecords } from '../../../connectors/kafka/row-records.js';
import { kafkaSinkOptions } from '../../../connectors/kafka/sink-options.js';
import { InvalidInputError } from '../../../src/errors.js';

class FakeProducer implements ProducerClient {
  readonly brokers = ['b1:9092', 'b2:9092'];
  readonly sent: OutgoingRecord[][] = [];
  readonly events: string[] = [];
  failOnSend: number | undefined;

  constructor(private readonly topics: Record<string, number>) {}

  async connect(): Promise<void> {
    this.events.push('connect');
  }
  async partitionCount(topic: string): Promise<number | undefined> {
    return this.topics[topic];
  }
  async send(_topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (this.sent.length === this.failOnSend) throw Object.assign(new Error('NOT_ENOUGH_REPLICAS'), { retriable: true });
    this.sent.push([...records]);
  }
  async beginTransaction(): Promise<ProducerTransaction> {
    this.events.push('begin');
    return { send: (topic, records) => this.send(topic, records), commit: async () => void this.events.push('commit'), abort: async () => void this.events.push('abort') };
  }
  async disconnect(): Promise<void> {
    this.events.push('disconnect');
  }
}

const record = (i: number, bytes = 10): OutgoingRecord => ({ key: null, value: Buffer.alloc(bytes, i % 256), headers: [] });

describe('Kafka sink', () => {
  it('regroups chunks into sends bounded by records and bytes, in order', async () => {
    const client = new FakeProducer({ t: 3 });
    const result = await new KafkaSink(client, { topic: 't', batchRecords: 4, batchBytes: 35 }).publish([[record(0), record(1), record(2)], [record(3), record(4)], [record(5)]]);
    expect(client.sent.map((b) => b.map((r) => r.value[0]))).toEqual([[0, 1, 2], [3, 4, 5]]);
    expect(result).toEqual({ topic: 't', records: 6, sends: 2, transactional: false });
    expect(client.events).toEqual(['connect', 'disconnect']);
  });

  it('says how many records were acknowledged before a failed send, and that they stay', async () => {
    const client = new FakeProducer({ t: 1 });
    client.failOnSend = 2;
    const publishing = new KafkaSink(client, { topic: 't', batchRecords: 2 }).publish([[0, 1, 2, 3, 4, 5].map((i) => record(i))]);
    await expect(publishing).rejects.toThrow(KafkaSinkError);
    await expect(publishing).rejects.toThrow(
      'Publishing to Kafka topic "t" on brokers b1:9092,b2:9092 failed: a send of 2 records failed: NOT_ENOUGH_REPLICAS; 4 records were acknowledged before the failure and stay in the topic',
    );
    await publishing.catch((error: KafkaSinkError) => {
      expect(error.retryable).toBe(true);
      expect(error.context).toMatchObject({ topic: 't', acknowledged: 4 });
    });
  });

  it('aborts the transaction on failure and commits it on success', async () => {
    const ok = new FakeProducer({ t: 1 });
    await new KafkaSink(ok, { topic: 't', transactional: true }).publish([[record(1)]]);
    expect(ok.events).toEqual(['connect', 'begin', 'commit', 'disconnect']);
    const failing = new FakeProducer({ t: 1 });
    failing.failOnSend = 0;
    await expect(new KafkaSink(failing, { topic: 't', transactional: true }).publish([[record(1)]])).rejects.toThrow(/transaction was aborted after 0 records/);
    expect(failing.events).toEqual(['connect', 'begin', 'abort', 'disconnect']);
  });

  it('refuses a missing topic and a bad topic name before sending', async () => {
    const client = new FakeProducer({});
    await expect(new KafkaSink(client, { topic: 'gone' }).publish([[record(1)]])).rejects.toThrow('Kafka topic "gone" does not exist on brokers b1:9092,b2:9092');
    expect(client.sent).toEqual([]);
    expect(() => new KafkaSink(client, { topic: 'a b' })).toThrow(InvalidInputError);
  });
});

describe('rows as Kafka records', () => {
  it('writes the value as JSON without header columns, keys from one or several columns, headers as text', () => {
    const layout = resolveLayout({ keyColumns: ['id'], headerColumns: ['trace'], headers: { src: 'thund' } }, ['id', 'big', 'at', 'trace'], 'rows');
    const out = rowRecord({ id: 7, big: 2n ** 63n - 1n, at: new Date(Date.UTC(2026, 0, 2)), trace: 't-7' }, layout);
    expect(out.value.toString()).toBe('{"id":7,"big":9223372036854775807,"at":"2026-01-02T00:00:00.000Z"}');
    expect(out.key?.toString()).toBe('7');
    expect(out.headers.map((h) => [h.key, h.value?.toString()])).toEqual([['src', 'thund'], ['trace', 't-7']]);
    const composite = rowRecord({ a: 'x', b: 1n }, resolveLayout({ keyColumns: ['a', 'b'] }, ['a', 'b'], 'rows'));
    expect(composite.key?.toString()).toBe('{"a":"x","b":1}');
    expect(rowRecord({ id: null }, resolveLayout({ keyColumns: ['id'] }, ['id'], 'rows')).key).toBeNull();
  });

  it('chunks rows and names a missing key column', async () => {
    const chunks: number[] = [];
    for await (const chunk of rowRecords(Array.from({ length: 5 }, (_, i) => ({ i })), {}, 2)) chunks.push(chunk.length);
    expect(chunks).toEqual([2, 2, 1]);
    const missing = rowRecords([{ a: 1 }], { keyColumns: ['id'] });
    await expect(missing.next()).rejects.toThrow('Kafka sink: key column "id" is not a column of the rows (columns: a)');
  });
});

describe('kafka sink dataset options', () => {
  it('reads the string options of a sink, headers and the THUND_KAFKA_BROKERS fallback', () => {
    expect(kafkaSinkOptions('alerts', { topic: 'alerts', key_columns: 'a, b', header_columns: 'trace', 'header.source': 'thund', transactional_id: 'tx-1', batch_records: '100' }, { THUND_KAFKA_BROKERS: 'k1:9092,k2:9093' })).toEqual({
      topic: 'alerts',
      brokers: ['k1:9092', 'k2:9093'],
      keyColumns: ['a', 'b'],
      headerColumns: ['trace'],
      headers: { source: 'thund' },
      transactionalId: 'tx-1',
      batchRecords: 100,
    });
    expect(kafkaSinkOptions('s', { topic: 't', 'kafka.bootstrap.servers': 'h:1' }, {}).brokers).toEqual(['h:1']);
  });

  it('names the sink and every bad or unknown option', () => {
    expect(() => kafkaSinkOptions('alerts', { topic: 't' }, {})).toThrow('Kafka sink "alerts": bootstrap_servers: is required (or set THUND_KAFKA_BROKERS)');
    expect(() => kafkaSinkOptions('alerts', { topic: 't', bootstrap_servers: 'h:1', batch_records: '0', partitoner: 'x' }, {})).toThrow(/Kafka sink "alerts": .*partitoner.*batch_records|Kafka sink "alerts": .*batch_records.*partitoner/);
  });
});
