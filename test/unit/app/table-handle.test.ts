import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Binary, Bool, DateDay, Float32, Float64, Int32, Int64, Table, TimestampMicrosecond, Utf8, vectorFromArray, makeData, makeVector } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError, NoSuchTableError, openCatalog, type ThundCatalog } from '../../../src/index.js';

/** A timestamp column from epoch microseconds, as Arrow stores them (its builders take milliseconds). */
function micros(values: readonly (bigint | null)[], zone?: string): ReturnType<typeof makeVector> {
  const data = BigInt64Array.from(values.map((v) => v ?? 0n));
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  return makeVector(makeData({ type: new TimestampMicrosecond(zone), length: values.length, nullCount: values.filter((v) => v === null).length, nullBitmap, data }));
}

describe('the table API on an embedded catalog', () => {
  let warehouse: string;
  let lake: ThundCatalog;

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-table-api-'));
    lake = await openCatalog({ catalog: { type: 'sql', warehouse } });
  });

  afterAll(async () => {
    await lake?.close();
    rmSync(warehouse, { recursive: true, force: true });
  });

  it('appends an Arrow table of every flat type and reads the same values back, nulls and microseconds included', async () => {
    const rows = new Table({
      i: vectorFromArray([1, null, -3], new Int32()),
      l: vectorFromArray([2n ** 40n, 7n, null], new Int64()),
      f: vectorFromArray([1.5, null, 2.25], new Float32()),
      d: vectorFromArray([0.1, 1e300, null], new Float64()),
      b: vectorFromArray([true, false, null], new Bool()),
      s: vectorFromArray(['a', null, 'ü'], new Utf8()),
      day: vectorFromArray([new Date(Date.UTC(2024, 1, 29)), null, new Date(Date.UTC(1969, 11, 31))], new DateDay()),
      ts: micros([1_700_000_000_000_123n, null, -1n]),
      tz: micros([5n, 1_000_000n, null], 'UTC'),
    });
    const written = await lake.table('api.types').append(rows);
    expect(written).toMatchObject({ addedRows: 3n, created: true });
    const read = await lake.table('api.types').read();
    expect(read.schema.fields.map((field) => `${field.name}: ${String(field.type)}`)).toEqual([
      'i: Int32',
      'l: Int64',
      'f: Float32',
      'd: Float64',
      'b: Bool',
      's: Utf8',
      'day: Date32<DAY>',
      'ts: Timestamp<MICROSECOND>',
      'tz: Timestamp<MICROSECOND, UTC>',
    ]);
    const byColumn = (name: string): unknown[] => [...(read.getChild(name) ?? [])];
    expect(byColumn('i')).toEqual([1, null, -3]);
    expect(byColumn('l')).toEqual([2n ** 40n, 7n, null]);
    expect(byColumn('f')).toEqual([1.5, null, 2.25]);
    expect(byColumn('d')).toEqual([0.1, 1e300, null]);
    expect(byColumn('b')).toEqual([true, false, null]);
    expect(byColumn('s')).toEqual(['a', null, 'ü']);
    expect(byColumn('day')).toEqual([Date.UTC(2024, 1, 29), null, Date.UTC(1969, 11, 31)]);
    // Arrow gives timestamps as epoch milliseconds; the raw values are the microseconds written.
    expect([...(read.getChild('ts')!.data[0]!.values as BigInt64Array)].filter((_, i) => read.getChild('ts')!.isValid(i))).toEqual([1_700_000_000_000_123n, -1n]);
    expect([...(read.getChild('tz')!.data[0]!.values as BigInt64Array)].filter((_, i) => read.getChild('tz')!.isValid(i))).toEqual([5n, 1_000_000n]);
  });

  it('overwrites, upserts by key, deletes by condition, and reads an older snapshot and a filtered one, refusing an unknown snapshot', async () => {
    const orders = lake.table('api.orders');
    const first = await orders.append({ sql: "SELECT * FROM (VALUES (1::BIGINT, 'a'), (2, 'b'), (3, 'c')) t(id, name)" });
    await orders.overwrite({ sql: "SELECT * FROM (VALUES (10::BIGINT, 'x'), (11, 'y')) t(id, name)" });
    await orders.upsert({ sql: "SELECT * FROM (VALUES (11::BIGINT, 'Y'), (12, 'z')) t(id, name)" }, { keys: ['id'] });
    const deleted = await orders.delete('id = 10');
    expect(deleted.deletedRows).toBe(1n);
    expect((await orders.delete('id = 999')).snapshotId).toBeUndefined();
    const rows = (table: Table): unknown[] => table.toArray().map((row) => row.toJSON()).sort((a, b) => Number(a['id']) - Number(b['id']));
    expect(rows(await orders.read())).toEqual([
      { id: 11n, name: 'Y' },
      { id: 12n, name: 'z' },
    ]);
    expect(rows(await orders.read({ snapshotId: first.snapshotId }))).toEqual([
      { id: 1n, name: 'a' },
      { id: 2n, name: 'b' },
      { id: 3n, name: 'c' },
    ]);
    expect(rows(await orders.read({ where: "name = 'z'" }))).toEqual([{ id: 12n, name: 'z' }]);
    const unknown = await orders.read({ snapshotId: 12345n }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(InvalidInputError);
    expect((unknown as Error).message).toMatch(/^Snapshot 12345 is not in the metadata of table api\.orders \(it keeps 4 snapshots; the current one is \d+\)$/);
    expect(await lake.listTables('api')).toEqual(expect.arrayContaining([{ namespace: ['api'], name: 'orders' }]));
  });

  it('refuses an Arrow column of a type it does not take, naming it, and writes nothing', async () => {
    const rows = new Table({ blob: vectorFromArray([new Uint8Array([1])], new Binary()) });
    const error = await lake.table('api.blobs').append(rows).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).context).toMatchObject({ column: 'blob' });
    await expect(lake.table('api.blobs').read()).rejects.toBeInstanceOf(NoSuchTableError);
  });
});

describe('openCatalog', () => {
  it('checks the config with the spec schemas and names the field that is wrong', async () => {
    const error = await openCatalog({ catalog: { type: 'rest' } as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/uri/);
  });

  it('refuses a secret written in the config, as in a spec', async () => {
    const error = await openCatalog({ catalog: { type: 'rest', uri: 'http://localhost:1', auth: { type: 'bearer', token: 'x' } } as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/token_env/);
  });
});
