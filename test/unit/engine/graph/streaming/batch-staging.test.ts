/**
 * stageRecords: the staged table's coordinate columns come from lines that name neither the topic
 * nor empty headers, with the types and order they always had, whether the value types are
 * detected or given, for batches of one topic or several.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../../../connectors/kafka/decode-records.js';
import type { RawRecord } from '../../../../../connectors/kafka/raw-record.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import { stageRecords, type JsonRecord } from '../../../../../src/engine/graph/streaming/batch-staging.js';
import { rawRecord } from '../../../kafka/records.js';

let session: DuckDbSession;
let tempDir: string;
beforeEach(async () => {
  session = await DuckDbSession.open();
  tempDir = mkdtempSync(join(tmpdir(), 'thund-staging-'));
});
afterEach(() => {
  session.close();
  rmSync(tempDir, { recursive: true, force: true });
});

const COORDINATES = ['_kafka_topic', '_kafka_partition', '_kafka_offset', '_kafka_timestamp', '_kafka_key', '_kafka_headers'];
const TYPES = ['VARCHAR', 'INTEGER', 'BIGINT', 'TIMESTAMP', 'VARCHAR', 'STRUCT("key" VARCHAR, "value" VARCHAR)[]'];

const records = (raws: Array<[string, Partial<RawRecord>]>): JsonRecord[] =>
  decodeRecords(
    new JsonDecoder(),
    raws.map(([value, overrides], i) => rawRecord(value, { offset: BigInt(10 + i), ...overrides })),
  ).records as JsonRecord[];

async function staged(batch: readonly JsonRecord[], columns?: ReadonlyMap<string, string>): Promise<{ columns: string[]; types: string[]; rows: Record<string, unknown>[] }> {
  await stageRecords({ session, records: batch, table: 'batch', tempDir, ...(columns === undefined ? {} : { columns }) });
  const described = (await session.queryJson('DESCRIBE batch')) as Array<{ column_name: string; column_type: string }>;
  const rows = await session.queryJson(
    `SELECT _kafka_topic AS topic, _kafka_partition AS p, _kafka_offset::VARCHAR AS o, epoch_ms(_kafka_timestamp)::VARCHAR AS ts, _kafka_key AS k, _kafka_headers AS h, id::INTEGER AS id FROM batch ORDER BY _kafka_topic, _kafka_offset`,
  );
  return { columns: described.map((c) => c.column_name), types: described.map((c) => c.column_type), rows };
}

describe('a staged batch', () => {
  const batch = (): JsonRecord[] =>
    records([
      ['{"id":1}', { topic: 'orders', partition: 0 }],
      ['{"id":2}', { topic: 'refunds', partition: 0, headers: [{ key: 'trace', value: Buffer.from('t-1') }, { key: 'gone', value: null }] }],
      ['{"id":3}', { topic: 'orders', partition: 5, key: null }],
      ['{"id":4}', { topic: 'refunds', partition: 1 }],
    ]);

  for (const mode of ['detected', 'given'] as const) {
    it(`of two topics has each record's topic, headers (an empty list when it has none) and coordinates, types ${mode}`, async () => {
      const result = await staged(batch(), mode === 'given' ? new Map([['id', 'BIGINT']]) : undefined);
      expect(result.columns).toEqual([...COORDINATES, 'id']);
      expect(result.types).toEqual([...TYPES, 'BIGINT']);
      expect(result.rows).toEqual([
        { topic: 'orders', p: 0, o: '10', ts: '1764000000000', k: 'k-1', h: [], id: 1 },
        { topic: 'orders', p: 5, o: '12', ts: '1764000000000', k: null, h: [], id: 3 },
        { topic: 'refunds', p: 0, o: '11', ts: '1764000000000', k: 'k-1', h: [{ key: 'trace', value: 't-1' }, { key: 'gone', value: null }], id: 2 },
        { topic: 'refunds', p: 1, o: '13', ts: '1764000000000', k: 'k-1', h: [], id: 4 },
      ]);
      expect(readdirSync(tempDir)).toEqual([]);
    });
  }

  it('of one topic and no headers still has the headers column, and no row of its own', async () => {
    const result = await staged(records([['{"id":7}', { topic: 'orders' }], ['{}', { topic: 'orders' }]]));
    expect(result.columns).toEqual([...COORDINATES, 'id']);
    expect(result.types.slice(0, COORDINATES.length)).toEqual(TYPES);
    expect(result.rows.map((r) => [r['topic'], r['o'], r['h'], r['id']])).toEqual([
      ['orders', '10', [], 7],
      ['orders', '11', [], null],
    ]);
  });
});
