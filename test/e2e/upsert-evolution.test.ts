/**
 * `mode: upsert` evolves the table's schema as append does, in the same commit as the rows: a
 * new column, an optional column the flow leaves out, widened types, and columns another writer
 * renamed or dropped. A key column another writer renamed or dropped is refused, as is any
 * change with `thund.schema.auto-evolve: false`; a refused run commits nothing.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openEmbeddedCatalog } from '../../src/app/embedded-catalog.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { renameColumnUpdate, schemaUpdate, type SchemaUpdate } from '../../src/iceberg/schema-update.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { tableRows, tableSnapshots } from './graph-support.js';
import { ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-upsert-evolve-');
const TABLE = { namespace: ['lake'], name: 'keyed' };

const specFile = (name: string, select: string, where: string, properties = ''): string =>
  ordersSpec(workdir(), name, 'lake.keyed', `{mode: upsert, keys: [order_id]${properties}}`, `SELECT ${select} FROM orders WHERE ${where}`);

/** Runs the spec and expects it to succeed; its stdout. */
function run(warehouse: string, name: string, select: string, where: string, properties = ''): string {
  const result = thund(['run', specFile(name, select, where, properties), '--warehouse', warehouse]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

/** A schema change made by another writer (as Spark's ALTER TABLE would commit it). */
async function alterTable(warehouse: string, change: (metadata: TableMetadata) => SchemaUpdate): Promise<void> {
  const { catalog } = openEmbeddedCatalog({ warehouse });
  try {
    const base = (await catalog.loadTable(TABLE)).metadata;
    const update = change(base);
    await catalog.commitTable(TABLE, [{ type: 'assert-table-uuid', uuid: base.tableUuid }, ...update.requirements], update.updates);
  } finally {
    await catalog.close();
  }
}

async function columns(warehouse: string): Promise<string[]> {
  const { catalog } = openEmbeddedCatalog({ warehouse });
  try {
    return currentSchema((await catalog.loadTable(TABLE)).metadata).fields.map((field) => field.name);
  } finally {
    await catalog.close();
  }
}

/** Two upserts into a fresh table, maybe with another writer's schema change between them. */
interface EvolvingCase {
  readonly what: string;
  /** SELECT list and WHERE of the first and second run. */
  readonly first: readonly [string, string];
  readonly second: readonly [string, string];
  readonly properties?: string;
  readonly between?: (metadata: TableMetadata) => SchemaUpdate;
  /** Lines the second run prints. */
  readonly prints: readonly string[];
  readonly columns: readonly string[];
  /** Every live row, its columns joined by |, in key order. */
  readonly rows: readonly string[];
  /** The table's delete files after the second run, when the case is about them. */
  readonly deleteFiles?: string;
}

const ID = 'CAST(id AS BIGINT) AS order_id';
const CASES: readonly EvolvingCase[] = [
  {
    what: 'adds a new column of the flow; rows written before read it as null',
    first: [`${ID}, 'a' AS version`, 'id <= 4'],
    second: [`${ID}, 'b' AS version, 'n' || id AS note`, 'id BETWEEN 3 AND 5'],
    prints: ['schema: added column note string'],
    columns: ['order_id', 'version', 'note'],
    rows: ['1|a|null', '2|a|null', '3|b|n3', '4|b|n4', '5|b|n5'],
  },
  {
    what: 'under copy-on-write, rows rewritten beside the replaced ones keep their values and read a new column as null',
    first: ["CAST(id AS INTEGER) AS order_id, 'a' AS version", 'id <= 4'],
    second: [`${ID}, 'b' AS version, 'n' || id AS note`, 'id BETWEEN 3 AND 5'],
    properties: ', properties: {write.update.mode: copy-on-write}',
    deleteFiles: '0',
    prints: ['schema: widened order_id from int to long', 'schema: added column note string'],
    columns: ['order_id', 'version', 'note'],
    rows: ['1|a|null', '2|a|null', '3|b|n3', '4|b|n4', '5|b|n5'],
  },
  {
    what: 'writes null for an optional column the flow leaves out',
    first: [`${ID}, 'a' AS version, 7 AS qty`, 'id <= 3'],
    second: [`${ID}, 8 AS qty`, 'id BETWEEN 2 AND 4'],
    prints: ['schema: no value for version (written as null)'],
    columns: ['order_id', 'version', 'qty'],
    rows: ['1|a|7', '2|null|8', '3|null|8', '4|null|8'],
  },
  {
    what: 'widens int to long (the key too), float to double and a decimal to a wider one',
    first: ['CAST(id AS INTEGER) AS order_id, CAST(id AS FLOAT) AS f, CAST(id AS DECIMAL(9, 2)) AS d', 'id <= 3'],
    second: ['CAST(id AS BIGINT) * 1 AS order_id, CAST(id AS DOUBLE) + 0.5 AS f, CAST(id AS DECIMAL(18, 2)) + 1000000000 AS d', 'id BETWEEN 3 AND 4'],
    prints: ['schema: widened order_id from int to long', 'schema: widened f from float to double', 'schema: widened d from decimal(9, 2) to decimal(18, 2)'],
    columns: ['order_id', 'f', 'd'],
    rows: ['1|1|1.00', '2|2|2.00', '3|3.5|1000000003.00', '4|4.5|1000000004.00'],
  },
  {
    what: 'takes a column another writer renamed: the flow column comes back as a new column',
    first: [`${ID}, 'a' AS version`, 'id <= 3'],
    between: (metadata) => renameColumnUpdate(metadata, 'version', 'label'),
    second: [`${ID}, 'b' AS version`, 'id BETWEEN 3 AND 4'],
    prints: ['schema: added column version string', 'schema: no value for label (written as null)'],
    columns: ['order_id', 'label', 'version'],
    rows: ['1|a|null', '2|a|null', '3|null|b', '4|null|b'],
  },
  {
    what: 'takes a column another writer dropped: it comes back as a new column',
    first: [`${ID}, 'a' AS version, 1 AS qty`, 'id <= 3'],
    between: (metadata) => schemaUpdate(metadata, currentSchema(metadata).fields.filter((field) => field.name !== 'version')),
    second: [`${ID}, 'b' AS version, 2 AS qty`, 'id BETWEEN 3 AND 4'],
    prints: ['schema: added column version string'],
    columns: ['order_id', 'qty', 'version'],
    rows: ['1|1|null', '2|1|null', '3|2|b', '4|2|b'],
  },
];

CASES.forEach((c, index) => {
  it(c.what, async () => {
    const warehouse = join(workdir(), `wh-${index}`);
    const properties = c.properties ?? '';
    run(warehouse, `first${index}`, ...c.first, properties);
    if (c.between !== undefined) await alterTable(warehouse, c.between);
    const printed = run(warehouse, `second${index}`, ...c.second, properties);
    for (const line of c.prints) expect(printed).toContain(line);
    expect(await columns(warehouse)).toEqual(c.columns);
    const rows = await tableRows(warehouse, 'lake.keyed', c.columns.join(', '));
    expect(rows.map((row) => c.columns.map((name) => String(row[name])).join('|'))).toEqual(c.rows);
    // One snapshot per run (the other writer's change adds none): the schema change landed with the rows.
    const snapshots = await tableSnapshots(warehouse, 'lake.keyed');
    expect(snapshots.length).toBe(2);
    if (c.deleteFiles !== undefined) expect(snapshots.at(-1)?.summary['total-delete-files']).toBe(c.deleteFiles);
  });
});

it('refuses a key column another writer renamed, naming it, and commits nothing', async () => {
  const warehouse = join(workdir(), 'wh-key-renamed');
  run(warehouse, 'key1', "CAST(id AS BIGINT) AS order_id, 'a' AS version", 'id <= 3');
  await alterTable(warehouse, (metadata) => renameColumnUpdate(metadata, 'order_id', 'oid'));
  const before = await tableSnapshots(warehouse, 'lake.keyed');
  const refused = thund(['run', specFile('key2', "CAST(id AS BIGINT) AS order_id, 'b' AS version", 'id <= 5'), '--warehouse', warehouse]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('key column "order_id"');
  expect(refused.stderr).toContain('lake.keyed');
  expect(await tableSnapshots(warehouse, 'lake.keyed')).toEqual(before);
  expect(await columns(warehouse)).toEqual(['oid', 'version']);
});

it('with thund.schema.auto-evolve false, a new column fails the upsert and changes nothing', async () => {
  const warehouse = join(workdir(), 'wh-strict');
  run(warehouse, 'strict1', "CAST(id AS BIGINT) AS order_id, 'a' AS version", 'id <= 3');
  const strict = ", properties: {thund.schema.auto-evolve: 'false'}";
  const refused = thund(['run', specFile('strict2', "CAST(id AS BIGINT) AS order_id, 'b' AS version, 'x' AS note", 'id <= 5', strict), '--warehouse', warehouse]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('note');
  expect(await columns(warehouse)).toEqual(['order_id', 'version']);
  const rows = await tableRows(warehouse, 'lake.keyed', 'order_id, version');
  expect(rows.map((row) => `${String(row['order_id'])}|${String(row['version'])}`)).toEqual(['1|a', '2|a', '3|a']);
});
