/**
 * Which struct fields of a streamed input a flow's SQL reads (staging reads only those), and the
 * learned columns narrowed to them: a field read by name is kept, a struct read whole, through a
 * star, a table alias alone or any reference naming no column of the input reads everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JsonDecoder } from '../../../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../../../connectors/kafka/decode-records.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import type { JsonRecord } from '../../../../../src/engine/graph/streaming/batch-staging.js';
import { LearnedColumns } from '../../../../../src/engine/graph/streaming/learned-columns.js';
import { narrowedColumns, structFieldsRead } from '../../../../../src/engine/graph/streaming/struct-fields-read.js';
import { rawRecord } from '../../../kafka/records.js';

let session: DuckDbSession;
let tempDir: string;
beforeEach(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  tempDir = mkdtempSync(join(tmpdir(), 'thund-struct-fields-'));
});
afterEach(() => {
  session.close();
  rmSync(tempDir, { recursive: true, force: true });
});

const COLUMNS = ['op', 'before', 'after', 'source', 'ts_ms', '_kafka_offset'];
const fieldsOf = async (sql: string): Promise<Record<string, string[]> | undefined> => {
  const read = await structFieldsRead(session, sql, COLUMNS);
  return read === undefined ? undefined : Object.fromEntries([...read].map(([column, fields]) => [column, [...fields].sort()]));
};

it('names the fields a query reads of each struct it reads by field alone', async () => {
  expect(await fieldsOf('SELECT op, before, after, source.lsn AS lsn FROM STREAM(changes)')).toEqual({ source: ['lsn'] });
  expect(await fieldsOf('SELECT c.op, c.after, c.source.lsn, c.source.Db FROM STREAM(changes) c WHERE c.source.snapshot IS NULL')).toEqual({ source: ['db', 'lsn', 'snapshot'] });
  expect(await fieldsOf('SELECT after.id, after.name, source.lsn FROM STREAM(changes)')).toEqual({ after: ['id', 'name'], source: ['lsn'] });
  // Read whole as well as by field: whole.
  expect(await fieldsOf('SELECT source.lsn, source FROM STREAM(changes)')).toEqual({});
  expect(await fieldsOf("SELECT struct_extract(source, 'lsn') FROM STREAM(changes)")).toEqual({});
});

it('reads everything when the tree cannot tell: a star, COLUMNS(), a table alias alone, a lambda parameter', async () => {
  expect(await fieldsOf('SELECT * FROM STREAM(changes)')).toBeUndefined();
  expect(await fieldsOf('SELECT * EXCLUDE (ts_ms) FROM STREAM(changes)')).toBeUndefined();
  expect(await fieldsOf("SELECT COLUMNS('s.*') FROM STREAM(changes)")).toBeUndefined();
  expect(await fieldsOf('SELECT to_json(c) FROM STREAM(changes) c')).toBeUndefined();
  expect(await fieldsOf('SELECT list_transform([source], x -> x.lsn) FROM STREAM(changes)')).toBeUndefined();
  expect(await fieldsOf('SELECT FROM')).toBeUndefined();
});

it('narrows a struct type to the fields read, in its order, and leaves it whole when none of them is a field', async () => {
  const columns = new Map([
    ['source', 'STRUCT("version" VARCHAR, lsn BIGINT, "table" VARCHAR, txId BIGINT)'],
    ['after', 'STRUCT(id BIGINT)'],
    ['ts_ms', 'BIGINT'],
    ['items', 'STRUCT(a BIGINT, b BIGINT)[]'],
  ]);
  const read = new Map([['source', new Set(['txid', 'table'])], ['after', new Set(['nothing'])], ['items', new Set(['a'])]]);
  const narrowed = await narrowedColumns(session, columns, read);
  // A list of structs is not a struct: as it is.
  expect(Object.fromEntries(narrowed)).toEqual({ source: 'STRUCT("table" VARCHAR, "txId" BIGINT)', after: 'STRUCT(id BIGINT)', ts_ms: 'BIGINT', items: 'STRUCT(a BIGINT, b BIGINT)[]' });
});

it('stages a batch read with learned types with only the struct fields the flow reads, and learns the whole types', async () => {
  const flow = 'SELECT op, after, source.lsn AS lsn FROM STREAM(changes)';
  const learned = new LearnedColumns(async (columns) => {
    const read = await structFieldsRead(session, flow, [...columns.keys(), '_kafka_offset']);
    return read === undefined ? columns : narrowedColumns(session, columns, read);
  });
  const envelope = (i: number, db: string): string => JSON.stringify({ op: 'u', after: { id: i }, source: { db, lsn: 100 + i, table: 't' } });
  const stage = async (values: string[]): Promise<{ source: string; rows: unknown[] }> => {
    const records = decodeRecords(new JsonDecoder(), values.map((v, i) => rawRecord(v, { offset: BigInt(i) }))).records as JsonRecord[];
    await learned.stage({ session, records, table: 'batch', tempDir });
    const [described] = await session.queryJson(`SELECT column_type FROM (DESCRIBE batch) WHERE column_name = 'source'`);
    const rows = await session.queryJson(`SELECT * FROM (${flow.replace('STREAM(changes)', 'batch')}) ORDER BY lsn`);
    return { source: String(described?.['column_type']), rows: rows.map((row) => Object.values(row).map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)))) };
  };
  // Detected: whole.
  expect(await stage([envelope(1, 'a'), envelope(2, 'b')])).toEqual({ source: 'STRUCT(db VARCHAR, lsn BIGINT, "table" VARCHAR)', rows: [['u', '{"id":"1"}', '101'], ['u', '{"id":"2"}', '102']] });
  // Read with the learned types, narrowed to lsn; the flow's rows are the same.
  expect(await stage([envelope(3, 'c'), envelope(4, 'd')])).toEqual({ source: 'STRUCT(lsn BIGINT)', rows: [['u', '{"id":"3"}', '103'], ['u', '{"id":"4"}', '104']] });
  // A new field: detected again, whole, and learned with it.
  const withNew = JSON.stringify({ op: 'u', after: { id: 5 }, source: { db: 'e', lsn: 105, table: 't', txId: 9 } });
  expect((await stage([withNew])).source).toBe('STRUCT(db VARCHAR, lsn BIGINT, "table" VARCHAR, txId BIGINT)');
  expect((await stage([withNew])).source).toBe('STRUCT(lsn BIGINT)');
});
