/**
 * Trino reads the quickstart table the built CLI wrote, straight from Thund's embedded catalog:
 * Trino's Iceberg connector with its JDBC catalog on the same SQLite file and its local file
 * system for the file:// locations. The rows must be the flow's output (computed by DuckDB from
 * the input) once per run, with the same Iceberg types.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, inspect, thund, type InspectReport } from '../e2e/cli.js';
import { icebergTypeOfTrino, readWithTrino, type TrinoTable } from '../interop/trino.js';
import { QUICKSTART_COLUMNS, quickstartExpectedRows } from '../interop/quickstart-expected.js';
import { verifyTableRows, verifyTableSchema, type Row } from '../interop/verify.js';
import { startTrino, type RunningTrino } from '../stack/trino.js';
import { summaryLine } from '../stack/service.js';

const SPEC = join(REPO, 'examples/quickstart/pipeline.yaml');
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('trino 483 reads the quickstart table from the embedded SQLite catalog', () => {
  let warehouse: string;
  let trino: RunningTrino;
  let expected: Row[];
  let written: InspectReport;
  let table: TrinoTable;

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-trino-quickstart-'));
    expected = await quickstartExpectedRows();
    for (let run = 0; run < 2; run++) {
      // The second run is forced: with the same input it would otherwise be up to date and skipped.
      const result = thund(['run', SPEC, '--warehouse', warehouse, ...(run > 0 ? ['--full-refresh'] : [])]);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    }
    written = inspect('lake.orders', warehouse);

    const startedAt = Date.now();
    trino = await startTrino({
      catalogs: {
        thund: { type: 'sqlite', catalogDb: join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default' },
      },
    });
    console.log(`${summaryLine(trino, trino.uri)} (ready in ${seconds(startedAt)})`);
    const queriedAt = Date.now();
    table = await readWithTrino({ uri: trino.uri, catalog: 'thund', table: 'lake.orders' });
    console.log(`trino read lake.orders: ${table.rowCount} rows in ${seconds(queriedAt)}`);
  });

  afterAll(async () => {
    await trino?.stop();
    if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
  });

  it('sees the schema with the same Iceberg types', () => {
    verifyTableSchema({
      expected: QUICKSTART_COLUMNS,
      actual: table.columns.map((column) => ({ name: column.name, type: icebergTypeOfTrino(column.type) })),
      reader: 'trino',
    });
  });

  it('sees both append snapshots, each on top of the last', () => {
    expect(table.snapshots.map((s) => [s.snapshotId, s.parentSnapshotId, s.operation])).toEqual(
      written.snapshots.map((s) => [String(s.snapshotId), s.parentSnapshotId === null ? null : String(s.parentSnapshotId), 'append']),
    );
  });

  it('reads exactly the flow output once per run', () => {
    expect(expected.length).toBeGreaterThan(500);
    const summary = verifyTableRows({ expected: [...expected, ...expected], actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'trino', table: 'lake.orders' });
    expect(summary.rows).toBe(2 * expected.length);
  });

  it('pushes a filter down to the same rows DuckDB selects', async () => {
    const gifts = await readWithTrino({ uri: trino.uri, catalog: 'thund', table: 'lake.orders', filter: "is_gift AND currency = 'EUR'" });
    const wanted = expected.filter((row) => row['is_gift'] === true && row['currency'] === 'EUR');
    expect(wanted.length).toBeGreaterThan(0);
    verifyTableRows({ expected: [...wanted, ...wanted], actual: gifts.rows, columns: QUICKSTART_COLUMNS, reader: 'trino', table: 'lake.orders' });
  });
});
