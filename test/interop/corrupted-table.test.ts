/**
 * The verifier can fail: the quickstart table is written, then corrupted on purpose the way a
 * buggy writer would, and pyiceberg's and Spark's reads of it must be reported as mismatches.
 *  (a) wrong field ids: the data file is rewritten with customer_name and currency (both
 *      strings) under each other's field id, so readers resolving columns by id swap them;
 *  (b) a bad bound: the manifest says order_id's upper bound is below the true maximum, so a
 *      scan filtered on `order_id > 500` prunes the file and loses rows.
 * Manifests and the manifest list are rewritten in place with node:fs (LocalFileIO rightly
 * refuses overwrites); sizes and lengths are kept consistent so only the intended lie remains.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteIdentifier, quoteLiteral } from '../../src/duckdb/session.js';
import type { ManifestFormatVersion } from '../../src/iceberg/avro/manifest-schemas.js';
import { encodeSingleValue } from '../../src/iceberg/bounds.js';
import type { DataFile, ManifestEntry, ManifestFile } from '../../src/iceberg/data-file.js';
import { readManifestList, writeManifestList } from '../../src/iceberg/manifest-list.js';
import { partitionType, readManifest, writeManifest } from '../../src/iceberg/manifest.js';
import { readTableMetadata } from '../../src/iceberg/metadata-json.js';
import type { Snapshot, TableMetadata } from '../../src/iceberg/table-metadata.js';
import { isPrimitive, type PrimitiveType, type Schema } from '../../src/iceberg/types.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { QUICKSTART_COLUMNS, localCatalog, quickstartExpectedRows, writeQuickstart } from './quickstart-expected.js';
import type { ReaderTable } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, type Row } from './verify.js';

const FILTER_BOUND = 500;
const FILTER = `order_id > ${FILTER_BOUND}`;
/** Below FILTER_BOUND, and below the true maximum order_id (1000). */
const LYING_UPPER_BOUND = 400n;

const localPath = (uri: string): string => (uri.startsWith('file:') ? fileURLToPath(uri) : uri);

interface CurrentTable {
  readonly metadata: TableMetadata;
  readonly snapshot: Snapshot;
  readonly schema: Schema;
  readonly listPath: string;
  readonly manifests: readonly { manifest: ManifestFile; path: string; entries: ManifestEntry[] }[];
}

/** The current snapshot's manifests and entries, found through the catalog row with SQLite. */
function loadCurrent(warehouse: string): CurrentTable {
  const db = new Database(join(warehouse, 'catalog.db'), { readonly: true, fileMustExist: true });
  const row = db.prepare("SELECT metadata_location FROM iceberg_tables WHERE table_namespace = 'lake' AND table_name = 'orders'").get() as
    | { metadata_location: string }
    | undefined;
  db.close();
  if (row === undefined) throw new Error(`no lake.orders in ${warehouse}/catalog.db`);
  const metadataPath = localPath(row.metadata_location);
  const metadata = readTableMetadata(readFileSync(metadataPath), metadataPath);
  const snapshot = metadata.snapshots.find((s) => s.snapshotId === metadata.currentSnapshotId);
  const schema = metadata.schemas.find((s) => s.schemaId === metadata.currentSchemaId);
  if (snapshot === undefined || schema === undefined) throw new Error('lake.orders has no current snapshot or schema');
  const listPath = localPath(snapshot.manifestList);
  const manifests = readManifestList(readFileSync(listPath), listPath).map((manifest) => {
    const path = localPath(manifest.manifestPath);
    const entries = readManifest(readFileSync(path), path, {
      snapshotId: manifest.addedSnapshotId,
      sequenceNumber: manifest.sequenceNumber,
      partitionSpecId: manifest.partitionSpecId,
    });
    return { manifest, path, entries };
  });
  return { metadata, snapshot, schema, listPath, manifests };
}

/** Rewrites every manifest of the current snapshot in place through `change`, then its manifest list. */
function rewriteManifests(warehouse: string, change: (dataFile: DataFile, schema: Schema) => DataFile): void {
  const { metadata, snapshot, schema, listPath, manifests } = loadCurrent(warehouse);
  const formatVersion = metadata.formatVersion as ManifestFormatVersion;
  const rewritten = manifests.map(({ manifest, path, entries }) => {
    const spec = metadata.partitionSpecs.find((s) => s.specId === manifest.partitionSpecId)!;
    const { bytes } = writeManifest({
      entries: entries.map((entry) => ({ ...entry, dataFile: change(entry.dataFile, schema) })),
      spec,
      partitionType: partitionType(spec, schema),
      schema,
      formatVersion,
      content: manifest.content,
      snapshotId: manifest.addedSnapshotId,
    });
    writeFileSync(path, bytes);
    return { ...manifest, manifestLength: BigInt(bytes.length) };
  });
  const list = writeManifestList({
    manifests: rewritten,
    snapshotId: snapshot.snapshotId,
    parentSnapshotId: snapshot.parentSnapshotId ?? null,
    sequenceNumber: snapshot.sequenceNumber,
    formatVersion,
    ...(formatVersion >= 3 ? { firstRowId: snapshot.firstRowId ?? 0n } : {}),
  });
  writeFileSync(listPath, list.bytes);
}

function columnOf(schema: Schema, name: string): { id: number; type: PrimitiveType } {
  const field = schema.fields.find((f) => f.name === name);
  if (field === undefined || !isPrimitive(field.type)) throw new Error(`no primitive column ${name}`);
  return { id: field.id, type: field.type };
}

/** (a) Each data file rewritten by DuckDB with customer_name and currency under swapped field ids. */
async function swapFieldIds(warehouse: string): Promise<void> {
  const { schema, manifests } = loadCurrent(warehouse);
  const ids = Object.fromEntries(schema.fields.map((f) => [f.name, f.id]));
  [ids['customer_name'], ids['currency']] = [columnOf(schema, 'currency').id, columnOf(schema, 'customer_name').id];
  const fieldIds = `{${Object.entries(ids)
    .map(([name, id]) => `${quoteIdentifier(name)}: ${id}`)
    .join(', ')}}`;
  const sizes = new Map<string, bigint>();
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    for (const entry of manifests.flatMap((m) => m.entries)) {
      const path = localPath(entry.dataFile.filePath);
      const rewritten = `${path}.swapped.parquet`;
      await session.run(`COPY (SELECT * FROM read_parquet(${quoteLiteral(path)})) TO ${quoteLiteral(rewritten)} (FORMAT parquet, FIELD_IDS ${fieldIds})`);
      copyFileSync(rewritten, path);
      rmSync(rewritten);
      sizes.set(entry.dataFile.filePath, BigInt(statSync(path).size));
    }
  } finally {
    session.close();
  }
  // Keep file_size_in_bytes true: Iceberg's Java reader finds the Parquet footer from it.
  rewriteManifests(warehouse, (dataFile) => ({ ...dataFile, fileSizeInBytes: sizes.get(dataFile.filePath) ?? dataFile.fileSizeInBytes }));
}

/** (b) order_id's upper bound in every manifest entry replaced by one below the true maximum. */
function lieAboutUpperBound(warehouse: string): void {
  rewriteManifests(warehouse, (dataFile, schema) => {
    const { id, type } = columnOf(schema, 'order_id');
    const upperBounds = new Map(dataFile.upperBounds);
    upperBounds.set(id, encodeSingleValue(type, LYING_UPPER_BOUND));
    return { ...dataFile, upperBounds };
  });
}

type Reader = 'pyiceberg' | 'spark';
const READERS: readonly Reader[] = ['pyiceberg', 'spark'];
const read = (reader: Reader, warehouse: string, filter?: string): Promise<ReaderTable> =>
  reader === 'pyiceberg' ? readWithPyiceberg(localCatalog(warehouse, { filter })) : readWithSpark(localCatalog(warehouse, { filter }));

function mismatchOf(expected: readonly Row[], table: ReaderTable, reader: string): string {
  try {
    verifyTableRows({ expected, actual: table.rows, columns: QUICKSTART_COLUMNS, reader, table: 'lake.orders' });
  } catch (error) {
    return (error as Error).message;
  }
  return '(no mismatch reported)';
}

describe('a deliberately corrupted table is caught', () => {
  let root: string;
  let intact: string;
  let swapped: string;
  let badBound: string;
  let all: Row[];
  let filtered: Row[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'thund-corrupt-'));
    intact = join(root, 'intact');
    swapped = join(root, 'swapped-field-ids');
    badBound = join(root, 'bad-upper-bound');
    for (const warehouse of [intact, swapped, badBound]) writeQuickstart(warehouse);
    all = await quickstartExpectedRows();
    filtered = await quickstartExpectedRows(FILTER);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(all.length);

    await swapFieldIds(swapped);
    lieAboutUpperBound(badBound);
  }, 300_000);

  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  it('control: the intact table passes, unfiltered and filtered (pyiceberg)', async () => {
    verifyTableRows({ expected: all, actual: (await read('pyiceberg', intact)).rows, columns: QUICKSTART_COLUMNS, reader: 'pyiceberg' });
    const pruned = await read('pyiceberg', intact, FILTER);
    verifyTableRows({ expected: filtered, actual: pruned.rows, columns: QUICKSTART_COLUMNS, reader: 'pyiceberg' });
    expect(pruned.dataFiles.length).toBeGreaterThan(0);
  }, 300_000);

  for (const reader of READERS) {
    it(`(a) swapped field ids: ${reader} reads currency as customer_name and the verifier reports every row`, async () => {
      const table = await read(reader, swapped);
      expect(table.rowCount).toBe(all.length);
      const message = mismatchOf(all, table, reader);
      expect(message).toContain(`${reader} read lake.orders differently from the expected rows`);
      expect(message).toContain(`expected ${all.length} rows, ${reader} read ${all.length}; 0 match, ${all.length} missing, ${all.length} unexpected`);
      expect(message).toContain('differs in: customer_name, currency');
      // A currency code now stands where the customer name was.
      expect(message).toMatch(/unexpected rows[^]*customer_name="[A-Z]{3}"/);
    }, 600_000);

    it(`(b) bad upper bound: ${reader}'s filtered scan prunes the file and the verifier reports the lost rows`, async () => {
      const table = await read(reader, badBound, FILTER);
      const message = mismatchOf(filtered, table, reader);
      expect(message).toContain(`expected ${filtered.length} rows, ${reader} read 0; 0 match, ${filtered.length} missing, 0 unexpected`);
      expect(message).toMatch(/missing rows \(expected, not read by \w+\) \(10 of \d+ distinct\):\n {2}order_id=\d+/);
      if (reader === 'pyiceberg') expect(table.dataFiles).toEqual([]);
    }, 600_000);
  }
});
