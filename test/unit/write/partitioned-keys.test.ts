/**
 * Partition key text from RETURN_STATS back into the JS single-value forms, for the result types
 * the writer tests do not reach with data (float, non-finite doubles), typed refusals, and signed
 * zeros kept in separate partitions as Iceberg's comparators keep them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { IcebergFormatError } from '../../../src/errors.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { maxPartitionCount, parseKeyText, partitionLayout } from '../../../src/write/partition-keys.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';

describe('parseKeyText', () => {
  it('reads back every float and double DuckDB prints as a key, bit for bit', async () => {
    const session = await DuckDbSession.open();
    try {
      const values = [0.1, -2.5e-40, 3.4028234663852886e38, 1 / 3, -0, 1e-45];
      const rows = await session.queryJson(
        `SELECT CAST(v AS FLOAT)::VARCHAR AS f, CAST(v AS DOUBLE)::VARCHAR AS d FROM (VALUES ${values.map((v) => `('${Object.is(v, -0) ? '-0.0' : v.toExponential(17)}'::DOUBLE)`).join(', ')}) t(v)`,
      );
      rows.forEach((row, i) => {
        expect(parseKeyText(primitive('float'), String(row['f']))).toBe(Math.fround(values[i]!));
        expect(parseKeyText(primitive('double'), String(row['d']))).toBe(values[i]);
      });
      const [special] = await session.queryJson(`SELECT 'nan'::DOUBLE::VARCHAR AS n, 'inf'::DOUBLE::VARCHAR AS p, '-inf'::FLOAT::VARCHAR AS m`);
      expect(parseKeyText(primitive('double'), String(special!['n']))).toBeNaN();
      expect(parseKeyText(primitive('double'), String(special!['p']))).toBe(Infinity);
      expect(parseKeyText(primitive('float'), String(special!['m']))).toBe(-Infinity);
    } finally {
      session.close();
    }
  });

  it('keeps null and refuses text that is not of the result type', () => {
    expect(parseKeyText(primitive('date'), null)).toBeNull();
    expect(() => parseKeyText(primitive('int'), '1.5')).toThrow(IcebergFormatError);
    expect(() => parseKeyText(primitive('boolean'), 'yes')).toThrow(/partition value "yes" as boolean/);
    expect(() => parseKeyText(primitive('binary'), 'abc')).toThrow(IcebergFormatError);
    expect(parseKeyText(primitive('binary'), '00FF10')).toEqual(new Uint8Array([0, 255, 16]));
  });
});

describe('identity partitions of doubles', () => {
  it('keeps -0.0 and 0.0 apart, each file holding only its own zero', async () => {
    const work = mkdtempSync(join(tmpdir(), 'thund-partitioned-keys-'));
    const session = await DuckDbSession.open();
    try {
      const files = await writePartitionedDataFiles({
        session,
        query: `SELECT v AS price FROM (VALUES ('-0.0'::DOUBLE), ('0.0'::DOUBLE), ('0.0'::DOUBLE), ('1.5'::DOUBLE)) t(v)`,
        schema: { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'price', required: false, type: primitive('double') }] },
        spec: { specId: 1, fields: [{ name: 'price', transform: 'identity', sourceId: 1, fieldId: 1000 }] },
        dataLocation: toFileUri(join(work, 'data')),
        io: new LocalFileIO(),
        properties: {},
        writerName: 'test',
      });
      const byValue = files.map((f) => [f.partition.get(1000), f.recordCount] as const).sort(([a], [b]) => (a as number) - (b as number) || (Object.is(a, -0) ? -1 : 1));
      expect(byValue.map(([v]) => (Object.is(v, -0) ? '-0' : String(v)))).toEqual(['-0', '0', '1.5']);
      expect(byValue.map(([, n]) => n)).toEqual([1n, 2n, 1n]);
      for (const file of files) {
        const rows = await session.queryJson(`SELECT price, signbit(price) AS negative FROM read_parquet(${quoteLiteral(new URL(file.filePath).pathname)}, hive_partitioning = false)`);
        const value = file.partition.get(1000) as number;
        for (const row of rows) expect([Number(row['price']) === value, row['negative']]).toEqual([true, Object.is(value, -0)]);
      }
    } finally {
      session.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('maxPartitionCount', () => {
  const schema: Schema = {
    schemaId: 0,
    identifierFieldIds: [],
    fields: [
      { id: 1, name: 'id', required: false, type: primitive('long') },
      { id: 2, name: 'flag', required: false, type: primitive('boolean') },
      { id: 3, name: 'ts', required: false, type: primitive('timestamp') },
    ],
  };
  const count = (...fields: [string, number][]): number | undefined => {
    const spec: PartitionSpec = { specId: 1, fields: fields.map(([transform, sourceId], i) => ({ name: `p${i}`, transform, sourceId, fieldId: 1000 + i })) };
    return maxPartitionCount(partitionLayout(spec, schema));
  };

  it('bounds buckets and booleans (a null partition each) and nothing else', () => {
    expect(count(['bucket[16]', 1], ['bucket[4]', 3])).toBe(17 * 5);
    expect(count(['identity', 2], ['void', 3], ['bucket[2]', 1])).toBe(3 * 3);
    expect(count(['bucket[16]', 1], ['day', 3])).toBeUndefined();
    expect(count(['identity', 1])).toBeUndefined();
  });
});
