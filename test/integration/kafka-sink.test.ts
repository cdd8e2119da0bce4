/**
 * The Kafka sink (kafkajs behind the ProducerClient adapter) against the test stack's broker: a
 * DuckDB relation and in-memory rows land as exactly the records a read_committed consumer reads
 * back (keys, JSON values with exact int64 and decimals, headers); a transaction that fails
 * midway leaves nothing visible; an unknown topic and an unreachable broker fail with errors that
 * name the topic and the brokers.
 */
import { createServer } from 'node:net';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaSinkError } from '../../connectors/kafka/kafka-sink-error.js';
import { publishRelation, publishRows } from '../../connectors/kafka/publish.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { parseJson } from '../../src/iceberg/json.js';
import { KafkaFixture, uniqueName } from './kafka-support/kafka-fixture.js';

const fixture = new KafkaFixture();
const kafka = new Kafka({ clientId: 'thund-it-sink-reader', brokers: fixture.brokers, logLevel: logLevel.NOTHING });

afterAll(async () => {
  await fixture.closeAll();
});

interface Read {
  readonly partition: number;
  readonly key: string | null;
  readonly value: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

/** Everything a consumer of a fresh group (read_committed unless asked) reads from the topic within `quietMs` after the last record (at least `expect` records). */
async function readTopic(topic: string, expected: number, quietMs = 2_000, readUncommitted = false): Promise<Read[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('sink-reader'), readUncommitted, maxWaitTimeInMs: 200 });
  const read: Read[] = [];
  let last = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      read.push(decoded(partition, message));
      last = Date.now();
    },
  });
  const deadline = Date.now() + 60_000;
  while ((read.length < expected || Date.now() - last < quietMs) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  return read;
}

function decoded(partition: number, message: KafkaMessage): Read {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.headers ?? {})) headers[key] = String(Array.isArray(value) ? value.join('|') : value?.toString('utf8'));
  return { partition, key: message.key?.toString('utf8') ?? null, value: parseJson(message.value?.toString('utf8') ?? 'null', 'record') as Record<string, unknown>, headers };
}

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe('Kafka sink on the test stack broker', () => {
  it('publishes a DuckDB relation in one transaction: a consumer reads exactly its rows, keys, values and headers', async () => {
    const topic = await fixture.createTopic(3);
    const session = await DuckDbSession.open({ threads: 1 });
    const rows = 2_500;
    try {
      await session.run(
        `CREATE TABLE alerts AS SELECT i::BIGINT AS id, i::BIGINT + 9007199254740993 AS big, 'name-' || i AS name, (i * 1.25)::DECIMAL(12,2) AS amount, 't-' || i AS trace FROM range(${rows}) AS t(i)`,
      );
      const result = await publishRelation(session, 'alerts', {
        brokers: fixture.brokers,
        topic,
        keyColumns: ['id'],
        headerColumns: ['trace'],
        headers: { source: 'thund' },
        transactionalId: uniqueName('thund-it-sink-tx'),
        batchRecords: 1_000,
      });
      expect(result).toEqual({ topic, records: rows, sends: 3, transactional: true });
    } finally {
      session.close();
    }
    const read = await readTopic(topic, rows);
    expect(read.length).toBe(rows);
    const byKey = new Map(read.map((r) => [r.key, r]));
    expect(byKey.size).toBe(rows);
    for (let i = 0; i < rows; i++) {
      const record = byKey.get(String(i));
      expect(record?.value).toEqual({ id: i, big: 9007199254740993n + BigInt(i), name: `name-${i}`, amount: Math.round(i * 125) / 100 });
      expect(record?.headers).toEqual({ source: 'thund', trace: `t-${i}` });
    }
    // Keys are partitioned: one key, one partition; the three partitions all got records.
    expect(new Set(read.map((r) => r.partition)).size).toBe(3);
  });

  it('publishes JSON rows without a transaction (idempotent producer), a composite key as a JSON object', async () => {
    const topic = await fixture.createTopic(2);
    const rows = Array.from({ length: 700 }, (_, i) => ({ region: `r${i % 7}`, seq: BigInt(i), at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), tags: [`a${i}`, null] }));
    const result = await publishRows(rows, { brokers: fixture.brokers, topic, keyColumns: ['region', 'seq'], batchRecords: 100 });
    expect(result).toEqual({ topic, records: 700, sends: 7, transactional: false });
    const read = await readTopic(topic, rows.length);
    expect(read.length).toBe(rows.length);
    const expected = rows.map((r) => ({ key: `{"region":"${r.region}","seq":${r.seq}}`, value: { region: r.region, seq: Number(r.seq), at: r.at.toISOString(), tags: r.tags } }));
    const got = read.map((r) => ({ key: r.key, value: r.value }));
    const order = (a: { key: string | null }, b: { key: string | null }): number => String(a.key).localeCompare(String(b.key));
    expect(got.sort(order)).toEqual(expected.sort(order));
  });

  it('aborts the transaction when the rows fail midway: a read_committed consumer sees none of them', async () => {
    const topic = await fixture.createTopic(1);
    async function* failing(): AsyncGenerator<Record<string, unknown>> {
      for (let i = 0; i < 2_500; i++) yield { i };
      throw new Error('the flow broke after 2500 rows');
    }
    const publishing = publishRows(failing(), { brokers: fixture.brokers, topic, transactionalId: uniqueName('thund-it-sink-abort'), batchRecords: 200 });
    await expect(publishing).rejects.toThrow(KafkaSinkError);
    await expect(publishing).rejects.toThrow(new RegExp(`topic "${topic}".*transaction was aborted after 2000 records; none of them is visible.*the flow broke after 2500 rows`));
    // A later committed publish is what the consumer reads, and only that.
    await publishRows([{ i: -1 }], { brokers: fixture.brokers, topic, transactionalId: uniqueName('thund-it-sink-after') });
    const read = await readTopic(topic, 1);
    expect(read.map((r) => r.value)).toEqual([{ i: -1 }]);
    // The aborted records did reach the broker: only read_uncommitted sees them.
    const uncommitted = await readTopic(topic, 2_001, 2_000, true);
    expect(uncommitted.length).toBe(2_001);
  });

  it('refuses an unknown topic with an error naming it and the brokers, and creates nothing', async () => {
    const topic = uniqueName('thund-sink-missing');
    const publishing = publishRows([{ a: 1 }], { brokers: fixture.brokers, topic });
    await expect(publishing).rejects.toThrow(KafkaSinkError);
    await expect(publishing).rejects.toThrow(`Kafka topic "${topic}" does not exist on brokers ${fixture.brokers.join(',')}`);
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).not.toContain(topic);
    } finally {
      await admin.disconnect();
    }
  });

  it('fails clearly, naming topic and broker, when no broker answers', async () => {
    const broker = `127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const publishing = publishRows([{ a: 1 }], { brokers: [broker], topic: 'orders', retries: 1, connection: { connectionTimeout: 1_000 } });
    await expect(publishing).rejects.toThrow(KafkaSinkError);
    await expect(publishing).rejects.toThrow(`Publishing to Kafka topic "orders" on brokers ${broker} failed: cannot connect to the Kafka brokers`);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('names a key column the relation does not have before sending anything', async () => {
    const topic = await fixture.createTopic(1);
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      await session.run(`CREATE TABLE t AS SELECT 1 AS a`);
      await expect(publishRelation(session, 't', { brokers: fixture.brokers, topic, keyColumns: ['nope'] })).rejects.toThrow(
        'Kafka sink: key column "nope" is not a column of relation "t" (columns: a)',
      );
    } finally {
      session.close();
    }
  });
});
