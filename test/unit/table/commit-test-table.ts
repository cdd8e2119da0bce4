/**
 * What the commit-loop tests share: a table `db.t (id long, label string)` in a SQLite catalog in
 * a temp folder, data files of a range of ids, a plain append, and catalogs that inject faults
 * around the real commit.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalog, LoadedTable, TableIdentifier } from '../../../catalog/catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot, type SnapshotCommitResult } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { manifestsOf } from '../../../src/table/scan.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';

export const ID: TableIdentifier = { namespace: ['db'], name: 't' };

export class CommitTestTable {
  private constructor(
    readonly work: string,
    readonly io: LocalFileIO,
    readonly catalog: SqlCatalog,
    readonly session: DuckDbSession,
  ) {}

  static async open(): Promise<CommitTestTable> {
    const work = mkdtempSync(join(tmpdir(), 'thund-commit-'));
    const io = new LocalFileIO();
    const catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: toFileUri(work), io });
    await catalog.createNamespace(['db']);
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'label', required: false, type: primitive('string') },
    ]);
    await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields } });
    return new CommitTestTable(work, io, catalog, await DuckDbSession.open());
  }

  async close(): Promise<void> {
    this.session.close();
    await this.catalog.close();
    rmSync(this.work, { recursive: true, force: true });
  }

  get metadataDir(): string {
    return join(this.work, 'db', 't', 'metadata');
  }

  /** The names in the table's metadata folder, sorted. */
  metadataFiles(): string[] {
    return readdirSync(this.metadataDir).sort();
  }

  /** Manifest and manifest-list files in the metadata folder that no snapshot of the table references. */
  async unreferencedAvroFiles(): Promise<string[]> {
    const { metadata } = await this.load();
    const referenced = new Set<string>();
    for (const snapshot of metadata.snapshots) {
      referenced.add(snapshot.manifestList);
      for (const manifest of await manifestsOf(this.io, snapshot)) referenced.add(manifest.manifestPath);
    }
    const names = new Set([...referenced].map((location) => location.slice(location.lastIndexOf('/') + 1)));
    return this.metadataFiles().filter((name) => name.endsWith('.avro') && !names.has(name));
  }

  load(): Promise<LoadedTable> {
    return this.catalog.loadTable(ID);
  }

  async writeRows(from: number, count: number): Promise<DataFile[]> {
    const { metadata } = await this.load();
    const schema = metadata.schemas[0];
    if (schema === undefined) throw new Error('table has no schema');
    return writeDataFiles({
      session: this.session,
      query: `SELECT range::BIGINT AS id, 'row ' || range AS label FROM range(${from}, ${from + count})`,
      schema,
      specId: 0,
      dataLocation: dataLocation(metadata),
      io: this.io,
      properties: metadata.properties,
      writerName: 'test',
    });
  }

  async append(files: DataFile[], via: Catalog = this.catalog, base?: LoadedTable, summaryProperties?: Readonly<Record<string, string>>): Promise<SnapshotCommitResult> {
    const table = base ?? (await this.load());
    return commitSnapshot({
      catalog: via,
      identifier: ID,
      base: { metadata: table.metadata, io: this.io, create: false },
      mode: 'append',
      addedFiles: files,
      ...(summaryProperties === undefined ? {} : { summaryProperties }),
    });
  }

  /** This catalog, except that `commitTable` runs `around` (which may call the real one, or not). */
  catalogWith(around: (real: Catalog['commitTable'], ...args: Parameters<Catalog['commitTable']>) => ReturnType<Catalog['commitTable']>): Catalog {
    const real: Catalog['commitTable'] = (...args) => this.catalog.commitTable(...args);
    return Object.create(this.catalog, { commitTable: { value: (...args: Parameters<Catalog['commitTable']>) => around(real, ...args) } }) as Catalog;
  }
}
