/**
 * Apply-changes targets read by pyiceberg: examples/cdc_scd2's Debezium events landed as an SCD2
 * table (merge-on-read, bucket-partitioned: closed versions are position deletes) and the same
 * events as an SCD1 table under copy-on-write, each through the apply-changes sink in four
 * micro-batches. pyiceberg must read exactly the rows one DuckDB statement computes from the
 * events, and so must Thund's own scan.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { quoteLiteral } from '../../src/duckdb/session.js';
import { createApplyChangesSink } from '../../src/engine/graph/apply-changes-sink.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { cdcContext, identifierOf, openWarehouse, type Warehouse } from '../unit/engine/graph/cdc-sink-fixture.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { verifyTableRows, type ColumnType } from './verify.js';

const FILES = fileURLToPath(new URL('../../examples/cdc_scd2/data/changes/', import.meta.url));
const EVENTS = `read_parquet(${quoteLiteral(`${FILES}*.parquet`)})`;
const FLAT = `SELECT unnest(CASE WHEN op = 'd' THEN before ELSE after END), source.lsn AS seq, op FROM ${EVENTS}`;

const SCD1: readonly ColumnType[] = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'email', type: 'string' },
  { name: 'tier', type: 'string' },
];
const SCD2: readonly ColumnType[] = [...SCD1, { name: '__START_AT', type: 'long' }, { name: '__END_AT', type: 'long' }];

const SCD1_EXPECTED = `SELECT id::VARCHAR AS id, name, email, tier FROM (SELECT * FROM (${FLAT}) QUALIFY row_number() OVER (PARTITION BY id ORDER BY seq DESC) = 1) WHERE op <> 'd'`;
/** Every event opens a version here (each update changes email); a version ends at the key's next event. */
const SCD2_EXPECTED = `SELECT id::VARCHAR AS id, name, email, tier, seq::VARCHAR AS __START_AT, next_seq::VARCHAR AS __END_AT
  FROM (SELECT *, lead(seq) OVER (PARTITION BY id ORDER BY seq) AS next_seq FROM (${FLAT})) WHERE op <> 'd'`;

let warehouse: Warehouse;

beforeAll(async () => {
  warehouse = await openWarehouse();
  const landings: readonly {
    readonly name: string;
    readonly storedAsScdType: 1 | 2;
    readonly properties: Readonly<Record<string, string>>;
    readonly partitionedBy: readonly string[];
  }[] = [
    { name: 'customers_history', storedAsScdType: 2, properties: {}, partitionedBy: ['bucket(4, id)'] },
    { name: 'customers', storedAsScdType: 1, properties: { 'write.update.mode': 'copy-on-write' }, partitionedBy: [] },
  ];
  for (const landing of landings) {
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, {
        name: landing.name,
        changes: { keys: ['id'], sequenceBy: 'source.lsn', changeFormat: { kind: 'debezium' }, storedAsScdType: landing.storedAsScdType },
        properties: landing.properties,
        partitionedBy: landing.partitionedBy,
      }),
    );
    for (let file = 0; file < 4; file += 1) {
      await warehouse.session.run(`CREATE OR REPLACE TABLE batch AS SELECT * FROM read_parquet(${quoteLiteral(`${FILES}part-${file}.parquet`)})`);
      await sink.write('batch', { 'thund.checkpoint.interop': String(file) });
    }
  }
}, 300_000);

afterAll(async () => {
  await warehouse?.close();
});

for (const [name, columns, expectedSql] of [
  ['customers_history', SCD2, SCD2_EXPECTED],
  ['customers', SCD1, SCD1_EXPECTED],
] as const) {
  it(`pyiceberg and Thund's scan read lake.${name} exactly`, async () => {
    const expected = await warehouse.session.queryJson(expectedSql);
    expect(expected.length).toBeGreaterThan(20);
    const table = await readWithPyiceberg({
      catalogDb: join(warehouse.work, 'catalog.db'),
      warehouse: pathToFileURL(warehouse.work).href,
      catalogName: 'default',
      table: `lake.${name}`,
    });
    verifyTableRows({ expected, actual: table.rows, columns, reader: 'pyiceberg', table: `lake.${name}` });
    if (name === 'customers_history') expect(table.dataFiles.some((file) => file.deleteFileCount > 0)).toBe(true);
    else expect(table.dataFiles.every((file) => file.deleteFileCount === 0)).toBe(true);

    const { metadata } = await warehouse.catalog.loadTable(identifierOf(name));
    const rows = await openTableRows({ session: warehouse.session, io: warehouse.io, metadata });
    try {
      const casts = columns.map((c) => (c.type === 'long' ? `"${c.name}"::VARCHAR AS "${c.name}"` : `"${c.name}"`)).join(', ');
      const actual = await warehouse.session.queryJson(`SELECT ${casts} FROM (${rows.sql})`);
      verifyTableRows({ expected, actual, columns, reader: 'thund', table: `lake.${name}` });
    } finally {
      await rows.release();
    }
  }, 300_000);
}
