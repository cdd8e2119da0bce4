import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DebeziumRowDecoder } from '../../../connectors/kafka/debezium-row-decoder.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { jsonSafeValue } from '../../../connectors/kafka/json-safe-values.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { serveSettings } from '../../../src/app/serve/serve-config.js';
import { loadServeFile } from '../../../src/app/serve/serve-file.js';
import { oneTopicPipeline } from '../../../src/app/serve/serve-one-topic.js';
import { pipelineKafkaSource } from '../../../connectors/kafka/pipeline-source-options.js';
import type { Dataset, SourceDataset } from '../../../src/pipeline/ir/dataset.js';
import { InvalidInputError } from '../../../src/errors.js';
import { rawRecord } from '../kafka/records.js';

const required = { 'kafka-brokers': 'a:9092', topic: 'orders', group: 'landers', table: 'lake.orders' };

function pipelineFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'thund-serve-file-')), 'pipeline.yaml');
  writeFileSync(file, text);
  return file;
}

describe('serve value formats and the serve: block', () => {
  it('defaults to JSON and takes debezium as debezium-json', () => {
    expect(serveSettings(required, {})).toMatchObject({ valueFormat: 'json', schemaRegistryUrlEnv: 'THUND_KAFKA_SCHEMA_REGISTRY_URL', debeziumOpColumn: '_op' });
    expect(serveSettings({ ...required, 'value-format': 'debezium' }, {}).valueFormat).toBe('debezium-json');
    expect(() => serveSettings({ ...required, 'value-format': 'protobuf' }, {})).toThrow(/--value-format \(or THUND_KAFKA_VALUE_FORMAT\): one of json, avro, debezium-json, debezium-avro/);
    expect(() => serveSettings({ ...required, 'schema-registry-password-env': 'hunter2' }, {})).toThrow(/not its value/);
  });

  it('reads the file block below flags and variables, substituting ${NAME}', async () => {
    const file = pipelineFile('catalog: { type: sql }\nserve:\n  topic: ${IT_TOPIC}\n  group: from-file\n  value_format: avro\n  commit_records: 10\n');
    const block = await loadServeFile(file, { IT_TOPIC: 'file-topic' });
    const settings = serveSettings({ 'kafka-brokers': 'a:1', table: 'a.b', group: 'from-flag' }, { THUND_KAFKA_VALUE_FORMAT: 'json' }, block);
    expect(settings).toMatchObject({ topic: 'file-topic', group: 'from-flag', valueFormat: 'json', commitRecords: 10 });
    expect(() => serveSettings({ 'kafka-brokers': 'a:1', table: 'a.b' }, {}, { path: file, values: { ...block.values, 'commit-records': '0' } })).toThrow(`serve.commit_records in ${file}`);
  });

  it('refuses unknown keys, secrets written in the file and unset variables, naming no value', async () => {
    await expect(loadServeFile(pipelineFile('serve:\n  schema_registry_password: hunter2\n'), {})).rejects.toThrow(/serve.schema_registry_password is not a serve setting .*schema_registry_password_env/);
    await expect(loadServeFile(pipelineFile('serve:\n  topicc: x\n'), {})).rejects.toThrow(/serve.topicc is not a serve setting \(known keys: kafka_brokers/);
    await expect(loadServeFile(pipelineFile('serve:\n  topic: ${NOPE_UNSET}\n'), {})).rejects.toThrow('serve.topic references ${NOPE_UNSET}, which is not set');
    expect((await loadServeFile(pipelineFile('catalog: { type: sql }\n'), {})).values).toEqual({});
  });

  it('needs the registry URL variable for Avro, naming the variable and not a value', async () => {
    const file = pipelineFile('catalog: { type: sql }\n');
    const sourceOf = async (flags: Record<string, string>) => {
      const { graph } = await oneTopicPipeline(file, serveSettings({ ...required, ...flags }, {}));
      const source = graph.datasets.find((d: Dataset): d is SourceDataset => d.kind === 'source');
      if (source === undefined) throw new Error('the shorthand pipeline has no source');
      return source;
    };
    const avro = await sourceOf({ 'value-format': 'avro', 'schema-registry-url-env': 'MY_SR' });
    expect(() => pipelineKafkaSource(avro, {})).toThrow(InvalidInputError);
    expect(() => pipelineKafkaSource(avro, {})).toThrow('Avro values need a schema registry: set MY_SR to its URL');
    expect(() => pipelineKafkaSource(avro, { MY_SR: 'http://u:p@host:8081', THUND_SCHEMA_REGISTRY_USERNAME: 'u' })).toThrow(/needs both THUND_SCHEMA_REGISTRY_USERNAME and THUND_SCHEMA_REGISTRY_PASSWORD/);
    expect(pipelineKafkaSource(avro, { MY_SR: 'http://host:8081' }).decoder.format).toBe('avro');
    const rows = pipelineKafkaSource(await sourceOf({ 'value-format': 'debezium-avro' }), { THUND_KAFKA_SCHEMA_REGISTRY_URL: 'http://h:1' });
    expect(rows.decoder.format).toBe('debezium-avro');
    expect(rows.consumerGroup).toBe('landers');
  });
});

describe('Debezium rows for serve', () => {
  const envelope = (op: string, before: unknown, after: unknown): string => JSON.stringify({ op, before, after, source: { db: 'x' }, ts_ms: 1 });

  it('lands after images for c, r, u and the before image for d, with the op; truncates and tombstones are counted', () => {
    const raws = [envelope('c', null, { id: 1 }), envelope('r', null, { id: 2 }), envelope('u', { id: 1 }, { id: 1, v: 2 }), envelope('d', { id: 2 }, null), envelope('t', null, null), null].map((v, i) =>
      rawRecord(v, { offset: BigInt(i) }),
    );
    const batch = decodeRecords(new DebeziumRowDecoder(new JsonDecoder(), 'op'), raws);
    expect(batch.records.map((r) => r.value)).toEqual([{ id: 1, op: 'c' }, { id: 2, op: 'r' }, { id: 1, v: 2, op: 'u' }, { id: 2, op: 'd' }]);
    expect(batch.skipped).toEqual({ truncate: 1, tombstone: 1 });
  });

  it('makes a row image that already has the op column a dead letter', () => {
    const batch = decodeRecords(new DebeziumRowDecoder(new JsonDecoder()), [rawRecord(envelope('c', null, { _op: 'mine' }))]);
    expect(batch.deadLetters.map((d) => d.reason)).toEqual(['the row image has a field named _op, the column that holds the Debezium op; choose another op column']);
  });

  it('turns Avro longs and bytes into JSON-stageable values', () => {
    expect(jsonSafeValue({ a: 5n, b: 2n ** 60n, c: Buffer.from('hi'), d: [1n, { e: -3n }] })).toEqual({ a: 5, b: '1152921504606846976', c: 'aGk=', d: [1, { e: -3 }] });
  });
});
