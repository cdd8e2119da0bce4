/**
 * LearnedColumns: a batch is read with the types the batch before it had, and detected again when
 * it brings a new field, a value that does not cast, or when the columns were nested; and
 * isProjectionOnly: which flow queries can stay a view.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../../../connectors/kafka/json-decoder.js';
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
  await learned.stage({ session, records: records(values), table: 'batch', tempDir, withHeaders: true });
  const described = (await session.queryJson('DESCRIBE batch')) as Array<{ column_name: string; column_type: string }>;
  const types = Object.fromEntries(described.filter((c) => !c.column_name.startsWith('_kafka_')).map((c) => [c.column_name, c.column_type]));
  const valueColumns = Object.keys(types).map((name) => `"${name}"::VARCHAR`).join(', ');
  const rows = (await session.queryJson(`SELECT ${valueColumns} FROM batch ORDER BY _kafka_offset`)).map((row) => Object.values(row));
  return { types, rows };
}

describe('LearnedColumns', () => {
  it('reads a batch with the types of the batch before it, and detects again on a new field or a value that does not cast', async () => {
    const learned = new LearnedColumns();
    expect((await stage(learned, ['{"a":1.5,"b":"x"}'])).types).toEqual({ a: 'DOUBLE', b: 'VARCHAR' });
    // Detected alone, 2 would be a BIGINT: the learned DOUBLE is what the batch is read with.
    expect(await stage(learned, ['{"a":2,"b":"y"}', '{"b":"z"}'])).toEqual({ types: { a: 'DOUBLE', b: 'VARCHAR' }, rows: [['2.0', 'y'], [null, 'z']] });
    // A value the learned type cannot take: detected again, nothing lost.
    expect(await stage(learned, ['{"a":"not a number","b":"w"}'])).toEqual({ types: { a: 'VARCHAR', b: 'VARCHAR' }, rows: [['not a number', 'w']] });
    // A new top-level field: detected again, and the field is read.
    expect(await stage(learned, ['{"a":"t","b":"u","c":7}'])).toEqual({ types: { a: 'VARCHAR', b: 'VARCHAR', c: 'BIGINT' }, rows: [['t', 'u', '7']] });
  });

  it('does not learn nested columns: a field a later record nests in a struct is read', async () => {
    const learned = new LearnedColumns();
    await stage(learned, ['{"s":{"x":1}}']);
    const second = await stage(learned, ['{"s":{"x":2,"y":3}}']);
    expect(second.types['s']).toBe('STRUCT(x BIGINT, y BIGINT)');
    expect(second.rows).toEqual([['{\'x\': 2, \'y\': 3}']]);
  });
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
