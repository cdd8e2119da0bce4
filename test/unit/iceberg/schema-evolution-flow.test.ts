/**
 * Schema evolution through the engine (runFlow) on the embedded SQL catalog: the table evolves
 * with the flow's output, data files carry the new field ids, and every refusal leaves the
 * catalog and the data folder as they were.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TableIdentifier } from '../../../catalog/catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { InvalidInputError, SchemaMismatchError } from '../../../src/errors.js';
import { schemaUpdate } from '../../../src/iceberg/schema-update.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { AUTO_EVOLVE_PROPERTY, runFlow, type FlowRunResult } from '../../../src/engine/run-flow.js';
import { liveDataFiles } from '../../../src/table/scan.js';

const T: TableIdentifier = { namespace: ['lake'], name: 'evo' };
const io = new LocalFileIO();
let work: string;
let catalog: SqlCatalog;
let session: DuckDbSession;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'thund-evo-'));
  catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: toFileUri(join(work, 'warehouse')), io });
  session = await DuckDbSession.open({ threads: 1 });
});

afterEach(async () => {
  session.close();
  await catalog.close();
  await rm(work, { recursive: true, force: true });
});

function flow(sql: string, tableProperties: Record<string, string> = {}, on: Catalog = catalog): Promise<FlowRunResult> {
  return runFlow({
    session,
    catalog: on,
    io,
    flowName: 'f',
    sql,
    target: T,
    mode: 'append',
    tableProperties,
    summaryProperties: {},
  });
}

const FIRST = `SELECT CAST(i AS INTEGER) AS id, CAST(i * 10 AS INTEGER) AS qty, {'a': CAST(i AS INTEGER)} AS info FROM range(1, 4) t(i)`;
const SECOND = `SELECT CAST(i AS BIGINT) AS id, CAST(i * 10 AS INTEGER) AS qty, {'a': CAST(i AS INTEGER), 'b': 'b' || i} AS info, 'n' || i AS note FROM range(4, 6) t(i)`;

/** Field ids of a Parquet file's columns by name path, as DuckDB reads its schema. */
async function parquetFieldIds(location: string): Promise<Record<string, string>> {
  const rows = await session.queryJson(`SELECT name, field_id::VARCHAR AS id, type FROM parquet_schema(${quoteLiteral(fileURLToPath(location))}) WHERE field_id IS NOT NULL`);
  return Object.fromEntries(rows.map((r) => [String(r['name']), `${String(r['id'])}:${String(r['type'])}`]));
}

async function dataFolderFiles(): Promise<string[]> {
  const dir = join(work, 'warehouse', 'lake', 'evo', 'data');
  return (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.parquet')).sort();
}

describe('runFlow with schema evolution', () => {
  it('adds columns, widens int→long and adds a nested field in the data commit; new files carry the new ids', async () => {
    const first = await flow(FIRST);
    expect(first.created).toBe(true);
    expect(first.schemaChanges).toEqual([]);
    const second = await flow(SECOND);
    expect(second.schemaChanges.map((c) => [c.kind, c.path.join('.'), c.fieldId])).toEqual([
      ['widen-type', 'id', 1],
      ['add-column', 'info.b', 5],
      ['add-column', 'note', 6],
    ]);
    const metadata = (await catalog.loadTable(T)).metadata;
    expect(metadata.schemas.map((s) => s.schemaId)).toEqual([0, 1]);
    expect(metadata.currentSchemaId).toBe(1);
    expect(metadata.lastColumnId).toBe(6);
    expect(currentSchema(metadata).fields.map((f) => [f.id, f.name, f.type.kind])).toEqual([
      [1, 'id', 'long'],
      [2, 'qty', 'int'],
      [3, 'info', 'struct'],
      [6, 'note', 'string'],
    ]);
    expect(second.snapshot.schemaId).toBe(1);
    expect(metadata.snapshots).toHaveLength(2);
    // One commit per run: the schema change went in with the snapshot, not before it.
    expect(metadata.metadataLog).toHaveLength(1);
    const [newFile] = second.dataFiles;
    expect(await parquetFieldIds(newFile!.filePath)).toEqual({ id: '1:INT64', qty: '2:INT32', info: expect.stringMatching(/^3:/), a: '4:INT32', b: '5:BYTE_ARRAY', note: '6:BYTE_ARRAY' });
    const [oldFile] = first.dataFiles;
    expect(await parquetFieldIds(oldFile!.filePath)).toEqual({ id: '1:INT32', qty: '2:INT32', info: expect.stringMatching(/^3:/), a: '4:INT32' });
    const rows = await session.queryJson(`SELECT id::VARCHAR AS id, info, note FROM read_parquet(${quoteLiteral(fileURLToPath(newFile!.filePath))}) ORDER BY id`);
    expect(rows).toEqual([
      { id: '4', info: { a: 4, b: 'b4' }, note: 'n4' },
      { id: '5', info: { a: 5, b: 'b5' }, note: 'n5' },
    ]);
    expect((await liveDataFiles(io, metadata)).map((f) => f.recordCount).sort()).toEqual([2n, 3n]);
  });

  it('writes nulls for optional columns the flow leaves out, without a schema change', async () => {
    await flow(SECOND);
    const result = await flow(`SELECT CAST(7 AS BIGINT) AS id, {'b': 'x'} AS info`);
    expect(result.schemaChanges).toEqual([]);
    expect(result.absentColumns).toEqual(['qty', 'info.a', 'note']);
    const metadata = (await catalog.loadTable(T)).metadata;
    expect(metadata.schemas).toHaveLength(1);
    const rows = await session.queryJson(`SELECT * FROM read_parquet(${quoteLiteral(fileURLToPath(result.dataFiles[0]!.filePath))})`);
    expect(rows).toEqual([{ id: '7', qty: null, info: { a: null, b: 'x' }, note: null }]);
  });

  it('with auto-evolve off, fails as before and leaves the catalog and data folder untouched', async () => {
    await flow(FIRST);
    const before = (await catalog.loadTable(T)).metadataLocation;
    const files = await dataFolderFiles();
    const error = await flow(SECOND, { [AUTO_EVOLVE_PROPERTY]: 'false' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as Error).message).toMatch(/Flow "f" cannot write to lake\.evo/);
    expect((error as Error).message).toMatch(/"note" in the input is not in the table/);
    expect((await catalog.loadTable(T)).metadataLocation).toBe(before);
    expect(await dataFolderFiles()).toEqual(files);
  });

  it('reads auto-evolve from the table when the pipeline does not set it', async () => {
    await flow(FIRST, { [AUTO_EVOLVE_PROPERTY]: 'false' });
    await expect(flow(SECOND)).rejects.toThrow(SchemaMismatchError);
    const evolved = await flow(SECOND, { [AUTO_EVOLVE_PROPERTY]: 'TRUE' });
    expect(evolved.schemaChanges).toHaveLength(3);
  });

  it('refuses an unsafe change with the table, column and both types, leaving everything as it was', async () => {
    await flow(FIRST);
    const before = (await catalog.loadTable(T)).metadataLocation;
    const files = await dataFolderFiles();
    const error = (await flow(`SELECT 1 AS id, 'ten' AS qty`).catch((e: unknown) => e)) as SchemaMismatchError;
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error.context).toMatchObject({ flow: 'f', table: 'lake.evo', column: 'qty', fromType: 'int', toType: 'string' });
    expect((await catalog.loadTable(T)).metadataLocation).toBe(before);
    expect(await dataFolderFiles()).toEqual(files);
  });

  it('refuses a property value that is not true or false', async () => {
    await flow(FIRST);
    await expect(flow(SECOND, { [AUTO_EVOLVE_PROPERTY]: 'yes' })).rejects.toThrow(InvalidInputError);
  });

  it('evolves again from the new schema when another writer changed it first, so field ids never collide', async () => {
    await flow(FIRST);
    let raced = false;
    const racing = new Proxy(catalog, {
      get(target, key, receiver) {
        if (key !== 'commitTable') return Reflect.get(target, key, receiver) as unknown;
        return async (...args: Parameters<Catalog['commitTable']>) => {
          if (!raced && args[2].some((u) => u.action === 'add-schema')) {
            raced = true;
            const base = (await target.loadTable(T)).metadata;
            const other = schemaUpdate(base, [...currentSchema(base).fields, { id: base.lastColumnId + 1, name: 'other', required: false, type: primitive('date') }]);
            await target.commitTable(T, other.requirements, other.updates);
          }
          return target.commitTable(...args);
        };
      },
    });
    const result = await flow(SECOND, {}, racing);
    expect(raced).toBe(true);
    const metadata = (await catalog.loadTable(T)).metadata;
    expect(currentSchema(metadata).fields.map((f) => [f.id, f.name])).toEqual([
      [1, 'id'],
      [2, 'qty'],
      [3, 'info'],
      [5, 'other'],
      [7, 'note'],
    ]);
    expect(result.absentColumns).toEqual(['other']);
    expect(await parquetFieldIds(result.dataFiles[0]!.filePath)).toMatchObject({ b: '6:BYTE_ARRAY', note: '7:BYTE_ARRAY' });
    expect(await dataFolderFiles()).toHaveLength(2);
  });
});
