/**
 * What the exactly-once tests share: the test stack's broker (topics, a producer), pipeline
 * files naming the stack's REST catalog + MinIO or an embedded catalog in a temp folder, and
 * waiting until a table's positions reach a total.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { requireServiceEnv } from '../../stack/service.js';
import { positionTotal, readPositions } from './landed-rows.js';
import { sleep } from './serve-process.js';

export const unique = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;

export class EoKafka {
  readonly brokers = requireServiceEnv('THUND_TEST_KAFKA_BROKERS');
  private readonly kafka = new Kafka({ clientId: 'thund-it-eo', brokers: this.brokers.split(','), logLevel: logLevel.NOTHING });
  private admin: Admin | undefined;
  private producerClient: Producer | undefined;

  async createTopic(topic: string, partitions: number): Promise<void> {
    const admin = await this.adminClient();
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
  }

  async deleteTopic(topic: string): Promise<void> {
    const admin = await this.adminClient();
    await admin.deleteTopics({ topics: [topic] });
    // Deletion is asynchronous on the broker: wait until the topic is gone before recreating it.
    for (let i = 0; i < 100 && (await admin.listTopics()).includes(topic); i++) await sleep(200);
  }

  async producer(): Promise<Producer> {
    if (this.producerClient === undefined) {
      this.producerClient = this.kafka.producer({ allowAutoTopicCreation: false });
      await this.producerClient.connect();
    }
    return this.producerClient;
  }

  async close(): Promise<void> {
    await this.producerClient?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
  }

  private async adminClient(): Promise<Admin> {
    if (this.admin === undefined) {
      this.admin = this.kafka.admin();
      await this.admin.connect();
    }
    return this.admin;
  }
}

/** A pipeline file whose catalog is the stack's REST catalog, with data on its MinIO. */
export function restPipelineFile(): string {
  requireServiceEnv('THUND_TEST_REST_URI');
  requireServiceEnv('THUND_TEST_S3_ENDPOINT');
  const dir = mkdtempSync(join(tmpdir(), 'thund-eo-'));
  const file = join(dir, 'pipeline.yaml');
  writeFileSync(
    file,
    [
      'catalog: { type: rest, uri: "${THUND_TEST_REST_URI}" }',
      'storage:',
      '  s3: { endpoint: "${THUND_TEST_S3_ENDPOINT}", region: "${THUND_TEST_S3_REGION}", path_style: true, access_key_id_env: THUND_TEST_S3_ACCESS_KEY, secret_access_key_env: THUND_TEST_S3_SECRET_KEY }',
      '',
    ].join('\n'),
  );
  return file;
}

/** A pipeline file with the embedded catalog in its own folder. */
export function embeddedPipelineFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'thund-eo-'));
  const file = join(dir, 'pipeline.yaml');
  writeFileSync(file, 'catalog: { type: sql, warehouse: warehouse }\n');
  return file;
}

export function tableName(identifier: TableIdentifier): string {
  return [...identifier.namespace, identifier.name].join('.');
}

/** Waits until the table's positions add up to `total` records (offsets start at 0 per partition). */
export async function waitForPositions(pipeline: string, identifier: TableIdentifier, total: number, timeoutMs: number, alive?: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0n;
  while (Date.now() < deadline) {
    alive?.();
    seen = positionTotal(await readPositions(pipeline, identifier));
    if (seen >= BigInt(total)) return;
    await sleep(500);
  }
  throw new Error(`the table's positions reached ${seen} of ${total} records within ${timeoutMs} ms`);
}
