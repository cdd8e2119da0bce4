/**
 * A partition spec bound to a schema: typed errors naming the field, partition tuples in
 * TypeScript, and the same tuples computed for a whole table inside DuckDB (partitionSql).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { bindPartitionSpec, partitionSql, partitionTuple } from '../../../src/iceberg/partition-fields.js';
import { partitionValueFromDuckDb } from '../../../src/iceberg/partition-values.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { registerTransformFunctions } from '../../../src/duckdb/transform-udfs.js';
import { primitive } from '../../../src/iceberg/types.js';
import type { Schema } from '../../../src/iceberg/types.js';

const SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    {
      id: 2,
      name: 'event',
      required: false,
      type: {
        kind: 'struct',
        fields: [
          { id: 3, name: 'at', required: false, type: primitive('timestamptz') },
          { id: 4, name: 'kind "x"', required: false, type: primitive('string') },
        ],
      },
    },
    { id: 5, name: 'tags', required: false, type: { kind: 'list', elementId: 6, elementRequired: false, element: primitive('string') } },
    { id: 7, name: 'score', required: false, type: primitive('double') },
  ],
};

const spec = (fields: [string, string, number][]): PartitionSpec => ({
  specId: 1,
  fields: fields.map(([name, transform, sourceId], i) => ({ name, transform, sourceId, fieldId: 1000 + i })),
});

const SPEC = spec([
  ['at_hour', 'hour', 3],
  ['kind_trunc', 'truncate[1]', 4],
  ['id_bucket', 'bucket[3]', 1],
]);

describe('bindPartitionSpec', () => {
  it('binds nested struct sources with their column path', () => {
    const bound = bindPartitionSpec(SPEC, SCHEMA);
    expect(bound.map((f) => [f.field.name, f.sourcePath, f.resultType.kind])).toEqual([
      ['at_hour', ['event', 'at'], 'int'],
      ['kind_trunc', ['event', 'kind "x"'], 'string'],
      ['id_bucket', ['id'], 'int'],
    ]);
  });

  it('refuses sources the spec forbids, naming the partition field', () => {
    expect(() => bindPartitionSpec(spec([['tag', 'identity', 6]]), SCHEMA)).toThrow(/Partition field tag: source column tags.element is inside a list or map/);
    expect(() => bindPartitionSpec(spec([['gone', 'identity', 99]]), SCHEMA)).toThrow(/Partition field gone: source column 99 is not in the schema/);
    expect(() => bindPartitionSpec(spec([['s', 'bucket[2]', 7]]), SCHEMA)).toThrow(
      /Partition field s: transform bucket\[2\] cannot be applied to source column score of type double/,
    );
    expect(() => bindPartitionSpec(spec([['e', 'identity', 2]]), SCHEMA)).toThrow(IcebergFormatError);
    expect(() => bindPartitionSpec(spec([['z', 'zorder', 1]]), SCHEMA)).toThrow(/unknown transform 'zorder'/);
  });
});

describe('partitionSql in DuckDB', () => {
  let session: DuckDbSession;
  beforeAll(async () => {
    session = await DuckDbSession.open({ threads: 2 });
    registerTransformFunctions(session.connection);
  });
  afterAll(() => session.close());

  it('computes the same tuple for every row as partitionTuple, over struct paths with quoted names', async () => {
    const rows: [bigint, bigint | null, string | null][] = [];
    for (let i = 0; i < 500; i++) {
      const at = i % 7 === 0 ? null : BigInt(Math.floor((Math.random() - 0.5) * 2e15));
      const kind = i % 11 === 0 ? null : ['click', 'view', '𝄞play', 'éclair', ''][i % 5]!;
      rows.push([BigInt(i * 7919 - 100000), at, kind]);
    }
    const values = rows
      .map(([id, at, kind]) => {
        const atSql = at === null ? 'NULL' : `TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_microseconds(CAST(${at} AS BIGINT))`;
        const kindSql = kind === null ? 'NULL' : `'${kind}'`;
        return `(CAST(${id} AS BIGINT), {'at': ${atSql}, 'kind "x"': ${kindSql}})`;
      })
      .join(', ');
    await session.run(`CREATE TABLE src AS SELECT * FROM (VALUES ${values}) v(id, event)`);
    const bound = bindPartitionSpec(SPEC, SCHEMA);
    const columns = partitionSql(bound);
    const result = await session.connection.runAndReadAll(`SELECT id, ${columns.map((c) => c.sql).join(', ')} FROM src ORDER BY id`);
    const got = (result.getRows() as unknown[][]).map((r) => new Map(columns.map((c, i) => [c.fieldId, partitionValueFromDuckDb(c.resultType, r[i + 1])])));
    const sorted = [...rows].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const expected = sorted.map(([id, at, kind]) => partitionTuple(bound, (sourceId) => ({ 1: id, 3: at, 4: kind })[sourceId] ?? null));
    expect(got).toEqual(expected);
    // Group a batch by its partition key inside DuckDB, as a partitioned writer does.
    const groups = await session.connection.runAndReadAll(
      `SELECT ${columns.map((c, i) => `${c.sql} AS p${i}`).join(', ')}, count(*) FROM src GROUP BY ALL`,
    );
    const counted = (groups.getRows() as unknown[][]).reduce((n, r) => n + Number(r.at(-1)), 0);
    expect(counted).toBe(rows.length);
    expect(groups.getRows().length).toBe(new Set(expected.map((t) => JSON.stringify([...t.values()], (_k, v) => (typeof v === 'bigint' ? String(v) : v)))).size);
  });
});
