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
function run(warehouse: string, name: string, select: string, where: string): string {
  const result = thund(['run', specFile(name, select, where), '--warehouse', warehouse]);
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

const text = (rows: Record<string, unknown>[], names: readonly string[]): string[] => rows.map((row) => names.map((n) => String(row[n])).join('|'));

it('adds a new column of the flow; rows written before read it as null', async () => {
  const warehouse = join(workdir(), 'wh-add');
  run(warehouse, 'add1', "CAST(id AS BIGINT) AS order_id, 'a' AS version", 'id <= 4');
  const out = run(warehouse, 'add2', "CAST(id AS BIGINT) AS order_id, 'b' AS version, 'n' || id AS note", 'id BETWEEN 3 AND 5');
  expect(out).toContain('schema: added column note string');
  expect(await columns(warehouse)).toEqual(['order_id', 'version', 'note']);
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, version, note'), ['order_id', 'version', 'note'])).toEqual([
    '1|a|null',
    '2|a|null',
    '3|b|n3',
    '4|b|n4',
    '5|b|n5',
  ]);
  // One snapshot per run: the schema change landed with the rows.
  expect((await tableSnapshots(warehouse, 'lake.keyed')).length).toBe(2);
});

it('under copy-on-write, rows rewritten beside the replaced ones keep their values and read a new column as null', async () => {
  const warehouse = join(workdir(), 'wh-cow');
  const cow = ', properties: {write.update.mode: copy-on-write}';
  const first = thund(['run', specFile('cow1', "CAST(id AS INTEGER) AS order_id, 'a' AS version", 'id <= 4', cow), '--warehouse', warehouse]);
  expect(first.stderr).toBe('');
  const second = thund(['run', specFile('cow2', "CAST(id AS BIGINT) AS order_id, 'b' AS version, 'n' || id AS note", 'id BETWEEN 3 AND 5', cow), '--warehouse', warehouse]);
  expect(second.stderr).toBe('');
  expect(second.stdout).toContain('schema: widened order_id from int to long');
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, version, note'), ['order_id', 'version', 'note'])).toEqual([
    '1|a|null',
    '2|a|null',
    '3|b|n3',
    '4|b|n4',
    '5|b|n5',
  ]);
  const { catalog } = openEmbeddedCatalog({ warehouse });
  try {
    const summary = (await catalog.loadTable(TABLE)).metadata.snapshots.at(-1)?.summary;
    expect(summary?.['total-delete-files']).toBe('0');
  } finally {
    await catalog.close();
  }
});

it('writes null for an optional column the flow leaves out', async () => {
  const warehouse = join(workdir(), 'wh-absent');
  run(warehouse, 'absent1', "CAST(id AS BIGINT) AS order_id, 'a' AS version, 7 AS qty", 'id <= 3');
  const out = run(warehouse, 'absent2', 'CAST(id AS BIGINT) AS order_id, 8 AS qty', 'id BETWEEN 2 AND 4');
  expect(out).toContain('schema: no value for version (written as null)');
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, version, qty'), ['order_id', 'version', 'qty'])).toEqual([
    '1|a|7',
    '2|null|8',
    '3|null|8',
    '4|null|8',
  ]);
});

it('widens int to long (the key too), float to double and a decimal to a wider one', async () => {
  const warehouse = join(workdir(), 'wh-widen');
  run(warehouse, 'widen1', 'CAST(id AS INTEGER) AS order_id, CAST(id AS FLOAT) AS f, CAST(id AS DECIMAL(9, 2)) AS d', 'id <= 3');
  const out = run(
    warehouse,
    'widen2',
    'CAST(id AS BIGINT) * 1 AS order_id, CAST(id AS DOUBLE) + 0.5 AS f, CAST(id AS DECIMAL(18, 2)) + 1000000000 AS d',
    'id BETWEEN 3 AND 4',
  );
  expect(out).toContain('schema: widened order_id from int to long');
  expect(out).toContain('schema: widened f from float to double');
  expect(out).toContain('schema: widened d from decimal(9, 2) to decimal(18, 2)');
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, f, d'), ['order_id', 'f', 'd'])).toEqual([
    '1|1|1.00',
    '2|2|2.00',
    '3|3.5|1000000003.00',
    '4|4.5|1000000004.00',
  ]);
});

it('takes a column another writer renamed: the flow column comes back as a new column', async () => {
  const warehouse = join(workdir(), 'wh-renamed');
  run(warehouse, 'renamed1', "CAST(id AS BIGINT) AS order_id, 'a' AS version", 'id <= 3');
  await alterTable(warehouse, (metadata) => renameColumnUpdate(metadata, 'version', 'label'));
  const out = run(warehouse, 'renamed2', "CAST(id AS BIGINT) AS order_id, 'b' AS version", 'id BETWEEN 3 AND 4');
  expect(out).toContain('schema: added column version string');
  expect(await columns(warehouse)).toEqual(['order_id', 'label', 'version']);
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, label, version'), ['order_id', 'label', 'version'])).toEqual([
    '1|a|null',
    '2|a|null',
    '3|null|b',
    '4|null|b',
  ]);
});

it('takes a column another writer dropped: it comes back as a new column', async () => {
  const warehouse = join(workdir(), 'wh-dropped');
  run(warehouse, 'dropped1', "CAST(id AS BIGINT) AS order_id, 'a' AS version, 1 AS qty", 'id <= 3');
  await alterTable(warehouse, (metadata) => schemaUpdate(metadata, currentSchema(metadata).fields.filter((field) => field.name !== 'version')));
  run(warehouse, 'dropped2', "CAST(id AS BIGINT) AS order_id, 'b' AS version, 2 AS qty", 'id BETWEEN 3 AND 4');
  expect(await columns(warehouse)).toEqual(['order_id', 'qty', 'version']);
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, qty, version'), ['order_id', 'qty', 'version'])).toEqual([
    '1|1|null',
    '2|1|null',
    '3|2|b',
    '4|2|b',
  ]);
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
  expect(text(await tableRows(warehouse, 'lake.keyed', 'order_id, version'), ['order_id', 'version'])).toEqual(['1|a', '2|a', '3|a']);
});
