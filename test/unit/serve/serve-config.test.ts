import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { serveSettings } from '../../../src/app/serve/serve-config.js';
import { oneTopicDefinition } from '../../../src/app/serve/serve-one-topic.js';

const required = { 'kafka-brokers': 'a:9092, b:9093', topic: 'orders', group: 'landers', table: 'lake.orders' };

describe('serve settings', () => {
  it('reads flags, splits brokers and applies defaults', () => {
    const settings = serveSettings(required, {});
    expect(settings.brokers).toEqual(['a:9092', 'b:9093']);
    expect(settings).toMatchObject({ topic: 'orders', group: 'landers', table: 'lake.orders', commitIntervalMs: 10_000, commitRecords: 50_000, httpHost: '127.0.0.1', view: 'kafka_records' });
    expect(settings.deadLetterTable).toBeUndefined();
  });

  it('takes environment variables where no flag is given, and a flag wins over its variable', () => {
    const env = { THUND_KAFKA_BROKERS: 'env:1', THUND_KAFKA_TOPIC: 'from-env', THUND_KAFKA_GROUP: 'g', THUND_SERVE_TABLE: 'a.b', THUND_SERVE_COMMIT_RECORDS: '500' };
    const settings = serveSettings({ topic: 'from-flag' }, env);
    expect(settings.topic).toBe('from-flag');
    expect(settings.brokers).toEqual(['env:1']);
    expect(settings.commitRecords).toBe(500);
  });

  it('passes --read-ahead-bytes (or THUND_KAFKA_READ_AHEAD_BYTES) to the Kafka source as read_ahead_bytes, refusing less than 1 MiB', () => {
    const sourceOptions = (settings: ReturnType<typeof serveSettings>): Record<string, string> => {
      const sources = oneTopicDefinition({}, settings)['sources'] as Record<string, { options: Record<string, string> }>;
      return Object.values(sources)[0]?.options ?? {};
    };
    expect(sourceOptions(serveSettings(required, {}))['read_ahead_bytes']).toBeUndefined();
    expect(sourceOptions(serveSettings(required, { THUND_KAFKA_READ_AHEAD_BYTES: '8388608' }))['read_ahead_bytes']).toBe('8388608');
    expect(() => serveSettings({ ...required, 'read-ahead-bytes': '1000' }, {})).toThrow(/--read-ahead-bytes \(or THUND_KAFKA_READ_AHEAD_BYTES\)/);
  });

  it('names the flag and its variable for a missing or invalid value', () => {
    expect(() => serveSettings({ ...required, table: 'orders' }, {})).toThrow(/--table \(or THUND_SERVE_TABLE\): write namespace\.table/);
    expect(() => serveSettings({ topic: 'x', group: 'g', table: 'a.b' }, {})).toThrow(/--kafka-brokers \(or THUND_KAFKA_BROKERS\): is required/);
    expect(() => serveSettings({ ...required, 'commit-interval-ms': '5' }, {})).toThrow(/--commit-interval-ms/);
    expect(() => serveSettings({ ...required, 'kafka-brokers': 'no-port' }, {})).toThrow(InvalidInputError);
  });

  it('refuses a table name part longer than a folder name can be, as pipeline validation does', () => {
    const long = `t${'x'.repeat(299)}`;
    expect(() => serveSettings({ ...required, table: `lake.${long}` }, {})).toThrow(/--table \(or THUND_SERVE_TABLE\): .*too long: 300 characters, at most 200/);
    expect(() => serveSettings({ ...required, 'dead-letter-table': `lake.${long}` }, {})).toThrow(/--dead-letter-table .*too long/);
    expect(serveSettings({ ...required, table: `lake.${'x'.repeat(200)}` }, {}).table).toBe(`lake.${'x'.repeat(200)}`);
  });
});
