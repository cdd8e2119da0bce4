/**
 * A pipeline's Kafka source options as the connector reads them: brokers, the decoder per value
 * format, TLS and SASL with secrets only through environment variables (errors name the variable,
 * never a value), Spark's dotted options passed over, anything else refused naming the option.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { pipelineKafkaSource } from '../../../../connectors/kafka/pipeline-source-options.js';
import { kafkaOptions } from '../../../../src/pipeline/ir/declarations.js';
import type { SourceDataset } from '../../../../src/pipeline/ir/dataset.js';
import type { KafkaSourceOptions } from '../../../../src/pipeline/ir/dataset.js';

const source = (options: Partial<Omit<KafkaSourceOptions, 'format' | 'topic'>> = {}): SourceDataset => ({
  kind: 'source',
  name: 'orders',
  source: kafkaOptions({ topic: 'orders', bootstrapServers: 'b1:9092,b2:9092', ...options }),
  origin: { file: 'pipeline.yaml', line: 3, column: 3 },
});

it('reads brokers from the source, else THUND_KAFKA_BROKERS, and refuses a broker that is not host:port', () => {
  expect(pipelineKafkaSource(source()).brokers).toEqual(['b1:9092', 'b2:9092']);
  const unset = source();
  const noBrokers: SourceDataset = { ...unset, source: kafkaOptions({ topic: 'orders' }) };
  expect(pipelineKafkaSource(noBrokers, { THUND_KAFKA_BROKERS: 'k:9092' }).brokers).toEqual(['k:9092']);
  expect(() => pipelineKafkaSource(noBrokers, {})).toThrow(/Kafka source "orders": bootstrap_servers is required \(or set THUND_KAFKA_BROKERS\)/);
  expect(() => pipelineKafkaSource(source({ bootstrapServers: 'broker' }))).toThrow(/"broker" is not host:port/);
});

it('builds SASL credentials from the variables the options name, and never shows their values', () => {
  const env = { KAFKA_USER: 'svc-thund', KAFKA_PASSWORD: 'hunter2-very-secret' };
  const settings = pipelineKafkaSource(
    source({ options: { security_protocol: 'SASL_SSL', sasl_mechanism: 'SCRAM-SHA-512', sasl_username_env: 'KAFKA_USER', sasl_password_env: 'KAFKA_PASSWORD' } }),
    env,
  );
  expect(settings.connection).toEqual({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'svc-thund', password: 'hunter2-very-secret' } });
  let message = '';
  try {
    pipelineKafkaSource(source({ options: { security_protocol: 'SASL_PLAINTEXT', sasl_mechanism: 'PLAIN', sasl_username_env: 'KAFKA_USER', sasl_password_env: 'MISSING_PASSWORD' } }), env);
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toBe('Kafka source "orders": sasl_password_env: environment variable MISSING_PASSWORD is not set');
  expect(() => pipelineKafkaSource(source({ options: { sasl_mechanism: 'PLAIN', security_protocol: 'SSL' } }), env)).toThrow(/SASL options need security_protocol SASL_PLAINTEXT or SASL_SSL \(it is SSL\)/);
  expect(() => pipelineKafkaSource(source({ options: { security_protocol: 'SASL_SSL', sasl_mechanism: 'GSSAPI' } }), env)).toThrow(/option sasl_mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512/);
});

it('reads extra CA certificates for TLS from ssl_ca_file, naming the file when it cannot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'thund-ca-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(pipelineKafkaSource(source({ options: { security_protocol: 'SSL', ssl_ca_file: join(dir, 'ca.pem') } })).connection).toEqual({
      ssl: { ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] },
    });
    expect(() => pipelineKafkaSource(source({ options: { security_protocol: 'SSL', ssl_ca_file: join(dir, 'none.pem') } }))).toThrow(/ssl_ca_file .*none\.pem cannot be read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('passes over Spark\'s own options but refuses their security settings and unknown ones, and needs a registry for Avro', () => {
  expect(pipelineKafkaSource(source({ options: { 'fetch.max.bytes': '1048576', startingOffsets: 'earliest' } })).checkJson).toBe(true);
  expect(() => pipelineKafkaSource(source({ options: { 'kafka.security.protocol': 'SASL_SSL' } }))).toThrow(
    /option kafka\.security\.protocol is a Kafka client setting the native reader does not take; use security_protocol/,
  );
  expect(() => pipelineKafkaSource(source({ options: { group_id: 'x' } }))).toThrow(/Kafka source "orders": unknown option group_id/);
  expect(() => pipelineKafkaSource(source({ valueFormat: 'avro' }), {})).toThrow(/Avro values need a schema registry: set THUND_KAFKA_SCHEMA_REGISTRY_URL/);
  expect(pipelineKafkaSource(source({ valueFormat: 'debezium' })).decoder.format).toBe('debezium-json');
});

it('takes the read-ahead in bytes from read_ahead_bytes, refusing one under 1 MiB naming the option', () => {
  expect(pipelineKafkaSource(source()).readAheadBytes).toBeUndefined();
  expect(pipelineKafkaSource(source({ options: { read_ahead_bytes: '33554432' } })).readAheadBytes).toBe(33_554_432);
  expect(() => pipelineKafkaSource(source({ options: { read_ahead_bytes: '4096' } }))).toThrow(/Kafka source "orders": option read_ahead_bytes: at least 1048576 \(1 MiB\)/);
});

it('has the consumer\'s worker write the staged lines of Debezium JSON envelopes, not of row images or Avro envelopes', () => {
  expect(pipelineKafkaSource(source({ valueFormat: 'debezium' })).debeziumJson).toBe(true);
  expect(pipelineKafkaSource(source({ valueFormat: 'debezium', options: { debezium_op_column: '_op' } })).debeziumJson).toBeUndefined();
  expect(pipelineKafkaSource(source({ valueFormat: 'json' })).debeziumJson).toBeUndefined();
  expect(pipelineKafkaSource(source({ valueFormat: 'debezium-avro' }), { THUND_KAFKA_SCHEMA_REGISTRY_URL: 'http://r:8081' }).debeziumJson).toBeUndefined();
});
