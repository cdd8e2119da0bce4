/**
 * A table created with `format-version: 3` gets row lineage right: each snapshot's first-row-id
 * is the table's next-row-id and added-rows counts what it assigned; pyiceberg reads it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { parseTableMetadata } from '../../src/iceberg/metadata-json.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { REPO, inspect, thund } from './cli.js';

const work = mkdtempSync(join(tmpdir(), 'thund-v3-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('appends twice to a v3 table with consistent row ids, readable by pyiceberg', async () => {
  mkdirSync(join(work, 'data'));
  copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders.parquet'));
  const spec = join(work, 'pipeline.yaml');
  writeFileSync(
    spec,
    `pipeline: v3
sources:
  orders: {format: parquet, path: data/orders.parquet}
tables:
  lake.v3: {mode: append, properties: {format-version: 3}}
flows:
  load: {target: lake.v3, sql: "SELECT id, customer FROM orders WHERE id % 2 = 0"}
`,
  );
  const warehouse = join(work, 'warehouse');
  // The second run is forced: with the same input it would otherwise be up to date and skipped.
  for (let run = 0; run < 2; run += 1) expect(thund(['run', spec, '--warehouse', warehouse, ...(run > 0 ? ['--full-refresh'] : [])]).stderr).toBe('');
  const report = inspect('lake.v3', warehouse);
  const metadata = parseTableMetadata(readFileSync(new URL(report.metadataLocation), 'utf8'), report.metadataLocation);
  const perRun = BigInt(report.snapshots[0]?.summary['added-records'] ?? '0');
  expect(metadata.formatVersion).toBe(3);
  expect(metadata.snapshots.map((s) => [s.firstRowId, s.addedRows])).toEqual([
    [0n, perRun],
    [perRun, perRun],
  ]);
  expect(metadata.nextRowId).toBe(2n * perRun);

  const read = await readWithPyiceberg({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: 'lake.v3',
  });
  expect(read.formatVersion).toBe(3);
  expect(read.rowCount).toBe(Number(2n * perRun));
}, 300_000);
