/**
 * `thund serve` (in process) with the table property thund.schema.auto-evolve=true: a batch
 * whose records bring new fields adds them to the table's schema as optional columns in the same
 * commit as the batch's snapshot; earlier rows read them as null. Without the property the new
 * fields are not written and the schema stays as it was. When another writer changes the schema
 * between the batch's evolution and its commit, nothing of the batch lands: it is read again and
 * evolves from the schema the other writer left.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../connectors/kafka/json-decoder.js';
import { KafkaJsConsumerClient } from '../../connectors/kafka/kafkajs-consumer-client.js';
import { KafkaSource } from '../../connectors/kafka/kafka-source.js';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { AUTO_EVOLVE_PROPERTY } from '../../src/engine/run-flow.js';
import { MicroBatchLoop } from '../../src/engine/graph/streaming/micro-batch-loop.js';
import { schemaUpdate } from '../../src/iceberg/schema-update.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../src/iceberg/types.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import type { Catalog, TableIdentifier } from '../../catalog/catalog.js';
import { embeddedPipelineFile, EoKafka, tableName, unique, waitForPositions } from './kafka-eo-support/eo-stack.js';
import { startServe, testServeSettings } from './kafka-eo-support/serve-in-process.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { localCatalog } from '../interop/quickstart-expected.js';
import { dirname, join } from 'node:path';

const kafka = new EoKafka();

afterAll(async () => {
  await kafka.close();
});

async function tableMetadata(pipeline: string, identifier: TableIdentifier) {
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    return (await opened.catalog.loadTable(identifier)).metadata;
  } finally {
    await opened.close();
  }
}

async function landTwoBatches(autoEvolve: 'true' | undefined): Promise<{ pipeline: string; table: TableIdentifier }> {
  const topic = unique('serve-evolve');
  const table = { namespace: [unique('evo')], name: 'events' };
  await kafka.createTopic(topic, 1);
  const pipeline = embeddedPipelineFile();
  const settings = testServeSettings(kafka.brokers, table, { topic, 'commit-interval-ms': '300', ...(autoEvolve === undefined ? {} : { 'schema-auto-evolve': autoEvolve }) });
  const running = startServe(pipeline, settings);
  try {
    const producer = await kafka.producer();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ key: `k-${i}`, value: JSON.stringify({ id: i, name: `n-${i}` }) })) });
    await waitForPositions(pipeline, table, 10, 60_000);
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k-${10 + j}`, value: JSON.stringify({ id: 10 + j, name: `n-${10 + j}`, extra: j * 10, tag: `t-${j}` }) })) });
    await waitForPositions(pipeline, table, 20, 60_000);
  } finally {
    await running.stop();
  }
  return { pipeline, table };
}

describe('thund serve: schema evolution', () => {
  it('adds new fields as optional columns in the same commit as the batch that brought them', async () => {
    const { pipeline, table } = await landTwoBatches('true');
    const metadata = await tableMetadata(pipeline, table);
    const fields = currentSchema(metadata).fields;
    expect(fields.map((f) => [f.name, f.required])).toEqual([
      ['_kafka_topic', false], ['_kafka_partition', false], ['_kafka_offset', false], ['_kafka_timestamp', false], ['_kafka_key', false], ['id', false], ['name', false], ['extra', false], ['tag', false],
    ]);
    expect(fields.slice(-2).map((f) => f.type)).toEqual([primitive('long'), primitive('string')]);
    // One metadata version per snapshot: the schema did not get a commit of its own.
    expect(metadata.snapshots.length).toBe(metadata.metadataLog.length);
    const last = metadata.snapshots[metadata.snapshots.length - 1];
    expect(last?.schemaId).toBe(metadata.currentSchemaId);
    expect(metadata.snapshots[0]?.schemaId).not.toBe(metadata.currentSchemaId);
    // pyiceberg (an independent reader) projects the old files onto the evolved schema by field id.
    const read = await readWithPyiceberg(localCatalog(join(dirname(pipeline), 'warehouse'), { table: tableName(table) }));
    expect(read.schema.slice(-2).map((f) => [f.name, f.type, f.required])).toEqual([['extra', 'long', false], ['tag', 'string', false]]);
    const rows = read.rows.map((r) => ({ id: r['id'], name: r['name'], extra: r['extra'], tag: r['tag'] })).sort((a, b) => Number(a.id) - Number(b.id));
    expect(rows).toEqual(Array.from({ length: 20 }, (_, i) => ({ id: i, name: `n-${i}`, extra: i < 10 ? null : (i - 10) * 10, tag: i < 10 ? null : `t-${i - 10}` })));
  }, 180_000);

  it('keeps the schema without the property: the new fields are not written', async () => {
    const { pipeline, table } = await landTwoBatches(undefined);
    const metadata = await tableMetadata(pipeline, table);
    expect(currentSchema(metadata).fields.map((f) => f.name)).toEqual(['_kafka_topic', '_kafka_partition', '_kafka_offset', '_kafka_timestamp', '_kafka_key', 'id', 'name']);
    expect(metadata.schemas.length).toBe(1);
    const read = await readWithPyiceberg(localCatalog(join(dirname(pipeline), 'warehouse'), { table: tableName(table) }));
    expect(read.rows.map((r) => Number(r['id'])).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  }, 180_000);

  it('reads a batch again when another writer changes the schema before its commit, then evolves from that schema', async () => {
    const topic = unique('serve-evolve-race');
    const table = { namespace: [unique('evo')], name: 'events' };
    await kafka.createTopic(topic, 1);
    const pipeline = embeddedPipelineFile();
    const opened = await openCatalog(await loadConnectionFile(pipeline));
    const tempDir = await mkdtemp(join(tmpdir(), 'thund-evolve-race-'));
    const session = await DuckDbSession.open({ threads: 1 });
    let raced = false;
    // Our first schema change meets a table whose schema another writer has just changed.
    const catalog = interceptCommits(opened.catalog, async (identifier, updates) => {
      if (raced || !updates.some((u) => u.action === 'add-schema')) return;
      raced = true;
      const { metadata } = await opened.catalog.loadTable(identifier);
      const fields = [...currentSchema(metadata).fields, { id: metadata.lastColumnId + 1, name: 'other', required: false, type: primitive('string') }];
      const change = schemaUpdate(metadata, fields);
      await opened.catalog.commitTable(identifier, change.requirements, change.updates);
    });
    const client = new KafkaJsConsumerClient({ brokers: kafka.brokers.split(','), groupId: unique('g'), sessionTimeoutMs: 6000 });
    const source = new KafkaSource<Record<string, unknown>>({ topics: [topic], decoder: new JsonDecoder(), client });
    const loop = new MicroBatchLoop({
      catalog,
      io: opened.io,
      source,
      session,
      target: table,
      deadLetterTarget: { namespace: table.namespace, name: 'events_dead_letters' },
      tableProperties: { [AUTO_EVOLVE_PROPERTY]: 'true' },
      tempDir,
      maxBatchRecords: 1000,
      maxBatchMs: 300,
    });
    try {
      await loop.start();
      const producer = await kafka.producer();
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ key: `k-${i}`, value: JSON.stringify({ id: i, name: `n-${i}` }) })) });
      await cyclesUntil(loop, 10);
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k-${10 + j}`, value: JSON.stringify({ id: 10 + j, name: `n-${10 + j}`, extra: j * 10, tag: `t-${j}` }) })) });
      await cyclesUntil(loop, 20);
    } finally {
      await source.close().catch(() => undefined);
      session.close();
      await rm(tempDir, { recursive: true, force: true });
    }
    expect(raced).toBe(true);
    expect(loop.totals.staleBatches).toBeGreaterThanOrEqual(1);
    const { metadata } = await opened.catalog.loadTable(table);
    await opened.close();
    const fields = currentSchema(metadata).fields;
    expect(fields.map((f) => f.name)).toEqual(['_kafka_topic', '_kafka_partition', '_kafka_offset', '_kafka_timestamp', '_kafka_key', 'id', 'name', 'other', 'extra', 'tag']);
    expect(new Set(fields.map((f) => f.id)).size).toBe(fields.length);
    // Each batch landed once: one snapshot each, in the schema it was written with.
    expect(metadata.snapshots.length).toBe(2);
    const read = await readWithPyiceberg(localCatalog(join(dirname(pipeline), 'warehouse'), { table: tableName(table) }));
    const rows = read.rows.map((r) => ({ id: r['id'], other: r['other'], extra: r['extra'], tag: r['tag'] })).sort((a, b) => Number(a.id) - Number(b.id));
    expect(rows).toEqual(Array.from({ length: 20 }, (_, i) => ({ id: i, other: null, extra: i < 10 ? null : (i - 10) * 10, tag: i < 10 ? null : `t-${i - 10}` })));
  }, 180_000);
});

/** The catalog with `before` called ahead of every commit. */
function interceptCommits(catalog: Catalog, before: (identifier: TableIdentifier, updates: readonly TableUpdate[]) => Promise<void>): Catalog {
  return new Proxy(catalog, {
    get(target, property) {
      if (property === 'commitTable') {
        return async (identifier: TableIdentifier, requirements: Parameters<Catalog['commitTable']>[1], updates: readonly TableUpdate[]) => {
          await before(identifier, updates);
          return target.commitTable(identifier, requirements, updates);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Runs the loop's batches until it has written `rows` rows in all. */
async function cyclesUntil(loop: MicroBatchLoop, rows: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (loop.totals.recordsOut < rows) {
    if (Date.now() > deadline) throw new Error(`the loop wrote ${loop.totals.recordsOut} of ${rows} rows within 60 s`);
    await loop.cycle();
  }
}
