/**
 * The independent reader itself, checked against foreign-written tables: pyiceberg must see as
 * many rows as the current snapshot's summary declares, and the schema the metadata declares.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWithPyiceberg, pyicebergPython } from './pyiceberg.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.resolve(REPO, process.env.THUND_FIXTURES ?? '../shared/fixtures');
/** Table and metadata locations in these catalogs are relative to this folder. */
const DUCKDB_ICEBERG = path.join(FIXTURES, 'duckdb-iceberg');

interface FixtureTable {
  readonly folder: string;
  readonly catalogName: string;
  readonly namespace: string;
  readonly name: string;
}

const TABLES: readonly FixtureTable[] = [
  { folder: 'null_stats', catalogName: 'local', namespace: 'default', name: 'test_nulls' },
  { folder: 'add_columns_with_defaults', catalogName: 'default', namespace: 'default', name: 'add_columns_with_defaults' },
];

interface MetadataJson {
  'current-snapshot-id'?: string | null;
  'current-schema-id': number;
  schemas: { 'schema-id': number; fields: { id: number; name: string; required: boolean }[] }[];
  snapshots?: { 'snapshot-id': string; summary: Record<string, string> }[];
}

function catalogDb(table: FixtureTable): string {
  return path.join(DUCKDB_ICEBERG, 'data/persistent', table.folder, 'pyiceberg_catalog.db');
}

/** The current metadata file, found through the catalog database with SQLite, not pyiceberg. */
function currentMetadata(table: FixtureTable): MetadataJson {
  const db = new Database(catalogDb(table), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?')
      .get(table.catalogName, table.namespace, table.name) as { metadata_location: string } | undefined;
    if (row === undefined) throw new Error(`fixture ${table.folder}: no catalog row for ${table.namespace}.${table.name}`);
    const location = row.metadata_location.replace(/^file:\/\//, '');
    const text = readFileSync(path.resolve(DUCKDB_ICEBERG, location), 'utf8');
    // Snapshot ids are int64: quote them before JSON.parse so they stay exact.
    return JSON.parse(text.replace(/("(?:current-|parent-)?snapshot-id"\s*:\s*)(-?\d+)/g, '$1"$2"')) as MetadataJson;
  } finally {
    db.close();
  }
}

describe('read_table.py through pyiceberg', () => {
  beforeAll(async () => {
    expect(existsSync(DUCKDB_ICEBERG), `fixtures folder ${DUCKDB_ICEBERG} (THUND_FIXTURES)`).toBe(true);
    await pyicebergPython();
  }, 600_000);

  for (const table of TABLES) {
    it(`${table.folder}: row count equals the current snapshot's total-records`, async () => {
      const metadata = currentMetadata(table);
      const current = metadata.snapshots?.find((s) => s['snapshot-id'] === metadata['current-snapshot-id']);
      expect(current).toBeDefined();
      const totalRecords = Number(current?.summary['total-records']);
      const deletes = Number(current?.summary['total-position-deletes'] ?? 0) + Number(current?.summary['total-equality-deletes'] ?? 0);
      expect(deletes).toBe(0);

      const read = await readWithPyiceberg({
        catalogDb: catalogDb(table),
        warehouse: `file://${DUCKDB_ICEBERG}`,
        catalogName: table.catalogName,
        table: `${table.namespace}.${table.name}`,
        cwd: DUCKDB_ICEBERG,
      });

      expect(totalRecords).toBeGreaterThan(0);
      expect(read.rowCount).toBe(totalRecords);
      expect(read.rows).toHaveLength(totalRecords);
      expect(read.dataFiles.reduce((sum, f) => sum + f.recordCount, 0)).toBe(totalRecords);
      expect(read.currentSnapshotId).toBe(metadata['current-snapshot-id']);
      expect(read.snapshots.find((s) => s.snapshotId === read.currentSnapshotId)?.summary['total-records']).toBe(String(totalRecords));

      const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
      expect(read.schema.map((f) => [f.id, f.name, f.required])).toEqual(schema?.fields.map((f) => [f.id, f.name, f.required]));
      for (const row of read.rows) expect(Object.keys(row).sort()).toEqual(schema?.fields.map((f) => f.name).sort());
    });
  }

  it('prints every value type JSON-safe (decimal, date, time, timestamps, uuid, fixed, binary)', async () => {
    const table = TABLES[1]!;
    const read = await readWithPyiceberg({
      catalogDb: catalogDb(table),
      warehouse: `file://${DUCKDB_ICEBERG}`,
      catalogName: table.catalogName,
      table: `${table.namespace}.${table.name}`,
      cwd: DUCKDB_ICEBERG,
    });
    const typeOf = new Map(read.schema.map((f) => [f.name, f.type]));
    const patterns: Record<string, RegExp> = {
      date: /^\d{4}-\d{2}-\d{2}$/,
      time: /^\d{2}:\d{2}:\d{2}(\.\d{6})?$/,
      timestamp: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?$/,
      timestamptz: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/,
      uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      binary: /^([0-9a-f]{2})*$/,
    };
    let checked = 0;
    for (const row of read.rows) {
      for (const [name, value] of Object.entries(row)) {
        if (value === null) continue;
        const type = typeOf.get(name) ?? '';
        const decimal = /^decimal\(\d+, (\d+)\)$/.exec(type);
        const fixed = /^fixed\[(\d+)\]$/.exec(type);
        if (decimal) expect(value).toMatch(new RegExp(`^-?\\d+\\.\\d{${decimal[1]}}$`));
        else if (fixed) expect(value).toMatch(new RegExp(`^[0-9a-f]{${Number(fixed[1]) * 2}}$`));
        else if (patterns[type]) expect(value, `${name}: ${type}`).toMatch(patterns[type]);
        else if (type === 'long' || type === 'int') expect(Number.isInteger(value)).toBe(true);
        else continue;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});
