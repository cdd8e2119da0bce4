/**
 * `thund serve` (in process) with the table property thund.schema.auto-evolve=true: a batch
 * whose records bring new fields adds them to the table's schema as optional columns in the same
 * commit as the batch's snapshot; earlier rows read them as null. Without the property the new
 * fields are not written and the schema stays as it was. When another writer changes the schema
 * between the batch's evolution and its commit, nothing of the batch lands: it is read again and
 * evolves from the schema the other writer left.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaOffsetStreams } from '../../connectors/kafka/kafka-offset-streams.js';
import { createParquetSourceConnector } from '../../connectors/parquet/parquet-source.js';
import { openCatalog } from '../../src/app/open-catalog.js';
import { oneTopicPipeline } from '../../src/app/serve/serve-one-topic.js';
import { NativeBackend } from '../../src/backend/native/native-backend.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
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
    // One metadata version per snapshot (the first commit created the table): the schema did not get a commit of its own.
    expect(metadata.metadataLog.length + 1).toBe(metadata.snapshots.length);
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
    let raced = false;
    // Our first schema change meets a table whose schema another writer has just changed.
    const catalog = interceptCommits(opened.catalog, async (identifier, updates) => {
      // Not the commit that creates the table (it assigns the table's uuid), but the first that evolves it.
      if (raced || !updates.some((u) => u.action === 'add-schema') || updates.some((u) => u.action === 'assign-uuid')) return;
      raced = true;
      const { metadata } = await opened.catalog.loadTable(identifier);
      const fields = [...currentSchema(metadata).fields, { id: metadata.lastColumnId + 1, name: 'other', required: false, type: primitive('string') }];
      const change = schemaUpdate(metadata, fields);
      await opened.catalog.commitTable(identifier, change.requirements, change.updates);
    });
    // The pipeline `thund serve --topic --table --schema-auto-evolve true` runs, one trigger at a time.
    const { graph } = await oneTopicPipeline(pipeline, testServeSettings(kafka.brokers, table, { topic, 'schema-auto-evolve': 'true' }));
    const sources = createParquetSourceConnector({});
    const trigger = async (): Promise<void> => {
      const result = await new NativeBackend({ catalog, io: opened.io, sources, streams: kafkaOffsetStreams() }).run(graph).result;
      expect(result.status, result.error?.message).toBe('completed');
    };
    try {
      const producer = await kafka.producer();
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ key: `k-${i}`, value: JSON.stringify({ id: i, name: `n-${i}` }) })) });
      await trigger();
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k-${10 + j}`, value: JSON.stringify({ id: 10 + j, name: `n-${10 + j}`, extra: j * 10, tag: `t-${j}` }) })) });
      await trigger();
    } finally {
      await sources.close();
    }
    expect(raced).toBe(true);
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
