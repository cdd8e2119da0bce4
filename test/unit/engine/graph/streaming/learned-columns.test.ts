/**
 * LearnedColumns: a batch is read with the types the batch before it had, and detected again when
 * it brings a new field, a value that does not cast, or when the columns were nested; and
 * isProjectionOnly: which flow queries can stay a view.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Batch, KafkaMessage } from 'kafkajs';
import { debeziumEnvelopeDecoder } from '../../../../../connectors/kafka/debezium-envelope-decoder.js';
import { debeziumEnvelopeLines } from '../../../../../connectors/kafka/debezium-line-packer.js';
import { JsonDecoder } from '../../../../../connectors/kafka/json-decoder.js';
import { packBatch, unpackBatch } from '../../../../../connectors/kafka/packed-batch.js';
import { decodeRecords } from '../../../../../connectors/kafka/decode-records.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import type { JsonRecord } from '../../../../../src/engine/graph/streaming/batch-staging.js';
import { LearnedColumns } from '../../../../../src/engine/graph/streaming/learned-columns.js';
import { isProjectionOnly } from '../../../../../src/engine/graph/streaming/projection-only.js';
import { rawRecord } from '../../../kafka/records.js';

let session: DuckDbSession;
let tempDir: string;
beforeEach(async () => {
  session = await DuckDbSession.open();
  tempDir = mkdtempSync(join(tmpdir(), 'thund-learned-'));
});
afterEach(() => {
  session.close();
  rmSync(tempDir, { recursive: true, force: true });
});

const records = (values: string[]): JsonRecord[] =>
  decodeRecords(new JsonDecoder(), values.map((v, i) => rawRecord(v, { offset: BigInt(i) }))).records as JsonRecord[];

async function stage(learned: LearnedColumns, values: string[]): Promise<{ types: Record<string, string>; rows: unknown[][] }> {
  await learned.stage({ session, records: records(values), table: 'batch', tempDir });
  const described = (await session.queryJson('DESCRIBE batch')) as Array<{ column_name: string; column_type: string }>;
  const types = Object.fromEntries(described.filter((c) => !c.column_name.startsWith('_kafka_')).map((c) => [c.column_name, c.column_type]));
  const valueColumns = Object.keys(types).map((name) => `"${name}"::VARCHAR`).join(', ');
  const rows = (await session.queryJson(`SELECT ${valueColumns} FROM batch ORDER BY _kafka_offset`)).map((row) => Object.values(row));
  return { types, rows };
}

describe('LearnedColumns', () => {
  it('reads a batch whose values have shapes seen before with the types learned, and detects again on a new field or a value that does not cast', async () => {
    const learned = new LearnedColumns();
    expect((await stage(learned, ['{"a":1.5,"b":"x"}'])).types).toEqual({ a: 'DOUBLE', b: 'VARCHAR' });
    // Detected alone, b would be a DATE: the learned VARCHAR is what the batch is read with.
    expect(await stage(learned, ['{"a":2.5,"b":"2024-01-01"}'])).toEqual({ types: { a: 'DOUBLE', b: 'VARCHAR' }, rows: [['2.5', '2024-01-01']] });
    // A value the learned type cannot take: detected again, nothing lost.
    expect(await stage(learned, ['{"a":"not a number","b":"w"}'])).toEqual({ types: { a: 'VARCHAR', b: 'VARCHAR' }, rows: [['not a number', 'w']] });
    // A new top-level field: detected again, and the field is read.
    expect(await stage(learned, ['{"a":"t","b":"u","c":7}'])).toEqual({ types: { a: 'VARCHAR', b: 'VARCHAR', c: 'BIGINT' }, rows: [['t', 'u', '7']] });
  });

  it('detects again when a number has a fraction where the learned column is an integer: nothing is rounded', async () => {
    const learned = new LearnedColumns();
    expect((await stage(learned, ['{"a":1}', '{"a":2}'])).types).toEqual({ a: 'BIGINT' });
    expect(await stage(learned, ['{"a":3}', '{"a":1.5}'])).toEqual({ types: { a: 'DOUBLE' }, rows: [['3.0'], ['1.5']] });
    // A batch of whole numbers after it (detected alone: BIGINT) stays DOUBLE, the table's type.
    expect(await stage(learned, ['{"a":4}'])).toEqual({ types: { a: 'DOUBLE' }, rows: [['4.0']] });
    expect(await stage(learned, ['{"a":5}', '{"a":5.5}'])).toEqual({ types: { a: 'DOUBLE' }, rows: [['5.0'], ['5.5']] });
  });

  it('learns struct columns, and detects again when a value nests a field they lack or a null turns into a value', async () => {
    const learned = new LearnedColumns();
    expect((await stage(learned, ['{"s":{"d":"hello","n":null}}'])).types).toEqual({ s: 'STRUCT(d VARCHAR, n JSON)' });
    // The same shape: read with the learned struct (detected alone, d would be a DATE).
    expect((await stage(learned, ['{"s":{"d":"2024-01-01","n":null}}'])).types).toEqual({ s: 'STRUCT(d VARCHAR, n JSON)' });
    const nested = await stage(learned, ['{"s":{"d":"x","n":null,"y":3}}']);
    expect(nested.types['s']).toBe('STRUCT(d VARCHAR, n JSON, y BIGINT)');
    expect(nested.rows).toEqual([["{'d': x, 'n': NULL, 'y': 3}"]]);
    // JSON while it was null only, the field takes the type of its values (a Debezium before image too).
    const filled = await stage(learned, ['{"s":{"d":"x","n":4,"y":3}}']);
    expect(filled.types['s']).toBe('STRUCT(d VARCHAR, n BIGINT, y BIGINT)');
    expect((await stage(learned, ['{"b":null}'])).types).toEqual({ s: 'STRUCT(d VARCHAR, n BIGINT, y BIGINT)', b: 'JSON' });
    expect((await stage(learned, ['{"b":{"id":1}}'])).types).toEqual({ s: 'STRUCT(d VARCHAR, n BIGINT, y BIGINT)', b: 'STRUCT(id BIGINT)' });
  });
});

it('learns from the shapes of the batch it detected only, not of records fetched with it that a later batch holds', async () => {
  const envelope = (op: string, id: number): string =>
    JSON.stringify({ before: op === 'u' ? { id, name: 'old' } : null, after: { id, name: 'new' }, source: { lsn: id }, op, ts_ms: 1 });
  const values = [envelope('c', 1), envelope('c', 2), envelope('u', 1)];
  const messages = values.map((value, i) => ({ offset: String(i), timestamp: '0', key: null, value: Buffer.from(value), headers: {}, attributes: 0 }) as KafkaMessage);
  const fetched = { topic: 't', partition: 0, fetchedOffset: '0', messages, lastOffset: () => '2' } as unknown as Batch;
  const raws = unpackBatch(packBatch(fetched, 0, debeziumEnvelopeLines)).records;
  const decoded = decodeRecords(debeziumEnvelopeDecoder(new JsonDecoder({ alwaysParse: true })), raws).records as JsonRecord[];
  expect(decoded.every((record) => record.stagedLine !== undefined && record.shape !== undefined)).toBe(true);
  const learned = new LearnedColumns();
  await learned.stage({ session, records: decoded.slice(0, 2), table: 'batch', tempDir });
  expect(await session.queryJson('SELECT typeof(before) AS t FROM batch LIMIT 1')).toEqual([{ t: 'JSON' }]);
  await learned.stage({ session, records: decoded.slice(2), table: 'batch', tempDir });
  expect(await session.queryJson("SELECT typeof(before) AS t, before.name AS name FROM batch")).toEqual([{ t: 'STRUCT(id BIGINT, "name" VARCHAR)', name: 'old' }]);
});

describe('isProjectionOnly', () => {
  it('accepts column picks from one stream and refuses anything that can fail on a row', async () => {
    const verdicts = await Promise.all(
      [
        'SELECT * FROM STREAM(x)',
        'SELECT * EXCLUDE (_kafka_headers) FROM STREAM(x)',
        'SELECT a, b AS c FROM STREAM(x) s',
        'SELECT a::INTEGER FROM STREAM(x)',
        'SELECT * FROM STREAM(x) WHERE a > 1',
        'SELECT * REPLACE (a + 1 AS a) FROM STREAM(x)',
        'SELECT a FROM STREAM(x) JOIN t USING (a)',
        'SELECT DISTINCT a FROM STREAM(x)',
        'SELECT a FROM STREAM(x) LIMIT 3',
        'SELECT a FROM t',
      ].map((sql) => isProjectionOnly(session, sql)),
    );
    expect(verdicts).toEqual([true, true, true, false, false, false, false, false, false, false]);
  });
});
