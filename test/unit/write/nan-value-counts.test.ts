/**
 * nan_value_counts of float and double columns (top-level and in structs) through the real
 * writers: committed on the SQLite catalog and read back from the manifest, each file's count is
 * the number of NaN and -NaN values it holds, infinities are values and bounds, NaN never is a
 * bound, a column without NaN counts 0, an all-NaN column counts every row and has no bounds, and
 * doubles inside a list get no count (Java's convention for repeated fields).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { toFileUri } from '../../../connectors/storage/local-file-io.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { readManifest } from '../../../src/iceberg/manifest.js';
import { allFields, assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../../src/iceberg/snapshot-ancestry.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { primitive, type PrimitiveType, type Schema } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { manifestsOf, snapshotOf } from '../../../src/table/scan.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ROWS = 1000;
const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'grp', required: false, type: primitive('string') },
  { name: 'd', required: false, type: primitive('double') },
  { name: 'f', required: false, type: primitive('float') },
  { name: 's', required: false, type: { kind: 'struct', fields: [{ name: 'x', required: false, type: primitive('double') }] } },
  { name: 'clean', required: false, type: primitive('double') },
  { name: 'all_nan', required: false, type: primitive('float') },
  { name: 'l', required: false, type: { kind: 'list', elementRequired: false, element: primitive('double') } },
]);
const SCHEMA: Schema = { schemaId: 0, identifierFieldIds: [], fields };
const QUERY = `
  SELECT range::BIGINT AS id,
         CASE WHEN range % 2 = 0 THEN 'even' ELSE 'odd' END AS grp,
         CASE WHEN range % 7 = 0 THEN 'nan'::DOUBLE WHEN range % 11 = 0 THEN -('nan'::DOUBLE) WHEN range % 13 = 0 THEN 'inf'::DOUBLE
              WHEN range % 17 = 0 THEN '-inf'::DOUBLE WHEN range % 19 = 0 THEN NULL ELSE range / 2 END AS d,
         CASE WHEN range % 5 = 0 THEN 'nan'::FLOAT ELSE (range / 4)::FLOAT END AS f,
         CASE WHEN range % 4 = 0 THEN NULL ELSE {'x': CASE WHEN range % 3 = 0 THEN -('nan'::DOUBLE) ELSE -range::DOUBLE END} END AS s,
         range::DOUBLE AS clean,
         'nan'::FLOAT AS all_nan,
         ['nan'::DOUBLE, range::DOUBLE] AS l
  FROM range(${ROWS})`;

/** What each column of the rows with the given parity holds, computed here, not by DuckDB. */
function expected(parity: 0 | 1 | undefined) {
  const per = { d: { nan: 0n, values: [] as number[] }, f: { nan: 0n, values: [] as number[] }, x: { nan: 0n, values: [] as number[] } };
  for (let r = 0; r < ROWS; r++) {
    if (parity !== undefined && r % 2 !== parity) continue;
    if (r % 7 === 0 || r % 11 === 0) per.d.nan++;
    else if (r % 13 === 0) per.d.values.push(Infinity);
    else if (r % 17 === 0) per.d.values.push(-Infinity);
    else if (r % 19 !== 0) per.d.values.push(r / 2);
    if (r % 5 === 0) per.f.nan++;
    else per.f.values.push(Math.fround(r / 4));
    if (r % 4 !== 0) {
      if (r % 3 === 0) per.x.nan++;
      else per.x.values.push(-r);
    }
  }
  const rows = parity === undefined ? ROWS : ROWS / 2;
  const bounds = (values: number[]) => ({ lower: Math.min(...values), upper: Math.max(...values) });
  return { rows: BigInt(rows), d: { ...per.d, ...bounds(per.d.values) }, f: { ...per.f, ...bounds(per.f.values) }, x: { ...per.x, ...bounds(per.x.values) } };
}

const idOf = (path: string): number => allFields(SCHEMA).find((f) => f.path.join('.') === path)!.field.id;
const bound = (file: DataFile, path: string, which: 'lower' | 'upper', type: PrimitiveType): unknown => {
  const bytes = (which === 'lower' ? file.lowerBounds : file.upperBounds)?.get(idOf(path));
  return bytes === undefined ? undefined : decodeSingleValue(type, bytes);
};

function expectNanMetrics(file: DataFile, parity: 0 | 1 | undefined): void {
  const want = expected(parity);
  const double = primitive('double');
  expect(file.recordCount).toBe(want.rows);
  expect(file.nanValueCounts?.get(idOf('d'))).toBe(want.d.nan);
  expect(file.nanValueCounts?.get(idOf('f'))).toBe(want.f.nan);
  expect(file.nanValueCounts?.get(idOf('s.x'))).toBe(want.x.nan);
  expect(file.nanValueCounts?.get(idOf('clean'))).toBe(0n);
  expect(file.nanValueCounts?.get(idOf('all_nan'))).toBe(want.rows);
  expect(file.nanValueCounts?.has(idOf('l.element'))).toBe(false);
  expect(file.nanValueCounts?.size).toBe(5);
  expect([bound(file, 'd', 'lower', double), bound(file, 'd', 'upper', double)]).toEqual([want.d.lower, want.d.upper]);
  expect([bound(file, 'f', 'lower', primitive('float')), bound(file, 'f', 'upper', primitive('float'))]).toEqual([want.f.lower, want.f.upper]);
  expect([bound(file, 's.x', 'lower', double), bound(file, 's.x', 'upper', double)]).toEqual([want.x.lower, want.x.upper]);
  expect([bound(file, 'all_nan', 'lower', primitive('float')), bound(file, 'all_nan', 'upper', primitive('float'))]).toEqual([undefined, undefined]);
  for (const path of ['d', 'f', 's.x', 'clean']) {
    const type = path === 'f' ? primitive('float') : double;
    expect(Number.isNaN(bound(file, path, 'lower', type)) || Number.isNaN(bound(file, path, 'upper', type)), path).toBe(false);
  }
}

let warehouse: LocalWarehouse;
beforeAll(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'nan-value-counts', namespaces: [['db']] });
});
afterAll(() => warehouse.close());

async function committedFiles(name: string, spec: PartitionSpec): Promise<DataFile[]> {
  const { catalog, io, session } = warehouse;
  const id: TableIdentifier = { namespace: ['db'], name };
  await catalog.createTable(id, { schema: SCHEMA, partitionSpec: spec });
  const { metadata } = await catalog.loadTable(id);
  const request = {
    session,
    query: QUERY,
    schema: currentSchema(metadata),
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: name,
  };
  const files =
    spec.fields.length === 0
      ? await writeDataFiles({ ...request, specId: spec.specId })
      : await writePartitionedDataFiles({ ...request, spec: defaultSpec(metadata) });
  await commitSnapshot({ catalog, identifier: id, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
  const [manifest] = await manifestsOf(io, snapshotOf((await catalog.loadTable(id)).metadata)!);
  return readManifest(await io.read(manifest!.manifestPath), manifest!.manifestPath, {
    snapshotId: manifest!.addedSnapshotId,
    sequenceNumber: manifest!.sequenceNumber,
  }).map((e) => e.dataFile);
}

describe('nan_value_counts', () => {
  it('are written for an unpartitioned table and read back from the manifest', async () => {
    const files = await committedFiles('flat', { specId: 0, fields: [] });
    expect(files).toHaveLength(1);
    expectNanMetrics(files[0]!, undefined);
  });

  it('are counted per file of a partitioned table', async () => {
    const files = await committedFiles('parted', { specId: 0, fields: [{ name: 'grp', transform: 'identity', sourceId: idOf('grp'), fieldId: 1000 }] });
    expect(files.map((f) => f.partition.get(1000)).sort()).toEqual(['even', 'odd']);
    for (const file of files) expectNanMetrics(file, file.partition.get(1000) === 'even' ? 0 : 1);
  });

  it('are counted for a column named like the file-name column the NaN pass reads', async () => {
    const { fields: clash } = assignFreshIds([
      { name: 'filename', required: false, type: primitive('double') },
      { name: '__thund_file', required: false, type: primitive('float') },
    ]);
    const [file] = await writeDataFiles({
      session: warehouse.session,
      query: `SELECT CASE WHEN range % 3 = 0 THEN 'nan'::DOUBLE ELSE range END AS filename, 'nan'::FLOAT AS __thund_file FROM range(30)`,
      schema: { schemaId: 0, identifierFieldIds: [], fields: clash },
      specId: 0,
      dataLocation: toFileUri(join(warehouse.work, 'clash')),
      io: warehouse.io,
      properties: {},
      writerName: 'clash',
    });
    expect([...file!.nanValueCounts!]).toEqual([
      [clash[0]!.id, 10n],
      [clash[1]!.id, 30n],
    ]);
  });

  it('follow the metrics mode: counts without bounds in counts mode, nothing in none', async () => {
    const write = async (mode: string) => {
      const [file] = await writeDataFiles({
        session: warehouse.session,
        query: QUERY,
        schema: SCHEMA,
        specId: 0,
        dataLocation: toFileUri(join(warehouse.work, `modes-${mode}`)),
        io: warehouse.io,
        properties: { 'write.metadata.metrics.default': mode },
        writerName: `modes-${mode}`,
      });
      return file!;
    };
    const counts = await write('counts');
    expect(counts.nanValueCounts?.get(idOf('d'))).toBe(expected(undefined).d.nan);
    expect(counts.lowerBounds?.size ?? 0).toBe(0);
    const none = await write('none');
    expect(none.nanValueCounts?.size ?? 0).toBe(0);
  });
});
