/**
 * For the format v3 interop tests (v3-spark.test.ts): Thund-side tables in the shared SQLite
 * catalog (created v3, appended, deleted from and upserted into through Thund's own APIs), the
 * DuckDB model each is compared with (a plain DuckDB table the same operations are applied to as
 * ordinary SQL), rows as canonical text for comparison, and the deletion vector blobs of a
 * table's delete files read from the Puffin files' bytes.
 */
import { readFileSync } from 'node:fs';
import type { TableIdentifier } from '../../catalog/catalog.js';
import type { SqlCatalog } from '../../catalog/sql/index.js';
import { fromFileUri, type LocalFileIO } from '../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../src/duckdb/session.js';
import { readPuffinFooter } from '../../src/iceberg/puffin/puffin-file.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { primitive, type PrimitiveKind } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { dataLocation } from '../../src/table/locations.js';
import type { RowOperationResult, RowOperationTarget } from '../../src/table/row-operation.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { upsert } from '../../src/table/upsert.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';

export interface ThundWarehouse {
  readonly catalog: SqlCatalog;
  readonly io: LocalFileIO;
  readonly session: DuckDbSession;
}

/** `ns.t` → identifier. */
export function tableId(name: string): TableIdentifier {
  const parts = name.split('.');
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1]! };
}

/** A row as canonical text: the values of `columns` in order, each as text or null, as one JSON array. */
export function rowKey(row: Readonly<Record<string, unknown>>, columns: readonly string[]): string {
  return JSON.stringify(columns.map((column) => (row[column] === null || row[column] === undefined ? null : String(row[column]))));
}

export const sortedKeys = (rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[]): string[] => rows.map((row) => rowKey(row, columns)).sort();

/**
 * A Thund table and its DuckDB model (`model_<name>`): every operation goes to both, Thund's
 * through its row-level APIs, the model's as plain SQL on a DuckDB table.
 */
export class ModelledTable {
  readonly identifier: TableIdentifier;
  readonly model: string;

  constructor(
    private readonly wh: ThundWarehouse,
    readonly name: string,
    readonly columns: readonly { readonly name: string; readonly type: PrimitiveKind; readonly duck: string }[],
  ) {
    this.identifier = tableId(name);
    this.model = `model_${name.replace(/\W/g, '_')}`;
  }

  get target(): RowOperationTarget {
    return { catalog: this.wh.catalog, identifier: this.identifier, io: this.wh.io, session: this.wh.session };
  }

  /** The model table only (for a table another engine creates). */
  async createModel(): Promise<void> {
    await this.wh.session.run(`CREATE OR REPLACE TABLE ${this.model} (${this.columns.map((c) => `${c.name} ${c.duck}`).join(', ')})`);
  }

  /** A v3 table (plus `properties`) and its model. */
  async createV3(properties: Record<string, string> = {}): Promise<void> {
    const { fields } = assignFreshIds(this.columns.map((c) => ({ name: c.name, required: false, type: primitive(c.type) })));
    await this.wh.catalog.createTable(this.identifier, {
      schema: { schemaId: 0, identifierFieldIds: [], fields },
      properties: { 'format-version': '3', 'write.delete.mode': 'merge-on-read', 'write.update.mode': 'merge-on-read', ...properties },
    });
    await this.createModel();
  }

  /** One append snapshot of the query's rows (the table's columns in order), as Thund's data files. */
  async append(query: string): Promise<bigint> {
    const { catalog, io, session } = this.wh;
    const { metadata } = await catalog.loadTable(this.identifier);
    const files = await writeDataFiles({ session, query, schema: currentSchema(metadata), specId: 0, dataLocation: dataLocation(metadata), io, properties: metadata.properties, writerName: 'v3 interop' });
    const committed = await commitSnapshot({ catalog, identifier: this.identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    await session.run(`INSERT INTO ${this.model} ${query}`);
    return committed.snapshot.snapshotId;
  }

  async deleteWhere(predicate: string): Promise<RowOperationResult> {
    const result = await deleteWhere(this.target, predicate);
    await this.wh.session.run(`DELETE FROM ${this.model} WHERE ${predicate}`);
    return result;
  }

  /** Upsert by `id`: the model deletes the source's keys, then inserts its rows. */
  async upsert(query: string): Promise<RowOperationResult> {
    const result = await upsert(this.target, { keyColumns: ['id'], sourceQuery: query });
    await this.wh.session.run(`DELETE FROM ${this.model} WHERE id IN (SELECT id FROM (${query}))`);
    await this.wh.session.run(`INSERT INTO ${this.model} ${query}`);
    return result;
  }

  /** The model's rows now, as canonical text. */
  async expected(where?: string): Promise<string[]> {
    return this.canonical(`SELECT * FROM ${this.model}${where === undefined ? '' : ` WHERE ${where}`}`);
  }

  /** A copy of the model's rows as they are now, for a time-travel read later. */
  async keepModel(suffix: string): Promise<string> {
    const copy = `${this.model}_${suffix}`;
    await this.wh.session.run(`CREATE OR REPLACE TABLE ${copy} AS SELECT * FROM ${this.model}`);
    return copy;
  }

  async canonical(sql: string): Promise<string[]> {
    const names = this.columns.map((c) => c.name);
    const rows = await this.wh.session.queryJson(`SELECT ${names.map((n) => `CAST(${n} AS VARCHAR) AS ${n}`).join(', ')} FROM (${sql})`);
    return sortedKeys(rows, names);
  }

  /** Thund's own scan of the current snapshot. */
  async thundRows(): Promise<string[]> {
    const { catalog, io, session } = this.wh;
    const { metadata } = await catalog.loadTable(this.identifier);
    const rows = await openTableRows({ session, io, metadata });
    try {
      return await this.canonical(rows.sql);
    } finally {
      await rows.release();
    }
  }
}

export interface DeleteFileRef {
  readonly path: string;
  readonly content_offset: string | null;
  readonly content_size_in_bytes: string | null;
}

/** The bytes of a deletion vector's blob, from its Puffin file (checked against the footer). */
export function dvBlobBytes(file: DeleteFileRef): Uint8Array {
  if (file.content_offset === null || file.content_size_in_bytes === null) throw new Error(`${file.path} has no content offset and size: not a deletion vector`);
  const bytes = readFileSync(fromFileUri(file.path));
  const footer = readPuffinFooter(bytes, file.path);
  const offset = BigInt(file.content_offset);
  const blob = footer.blobs.find((b) => b.offset === offset);
  if (blob === undefined || blob.length !== BigInt(file.content_size_in_bytes) || blob.type !== 'deletion-vector-v1') {
    throw new Error(`${file.path}: no deletion-vector-v1 blob at offset ${offset} of length ${file.content_size_in_bytes} (footer: ${JSON.stringify(footer.blobs, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))})`);
  }
  return bytes.subarray(Number(offset), Number(offset) + Number(blob.length));
}

/** The footer's blob list of a Puffin file (offsets and lengths as text). */
export function puffinBlobs(path: string): { type: string; offset: string; length: string; properties: Record<string, string> }[] {
  const bytes = readFileSync(fromFileUri(path));
  return readPuffinFooter(bytes, path).blobs.map((b) => ({ type: b.type, offset: String(b.offset), length: String(b.length), properties: b.properties ?? {} }));
}

/**
 * The container kinds of a `deletion-vector-v1` blob, read straight from the Roaring portable
 * bytes (independently of Thund's codec), per 32-bit key: `array`, `bitmap` or `run`.
 */
export function containerKinds(blob: Uint8Array): string[][] {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  let at = 8; // int32 length, magic
  const buckets = Number(view.getBigUint64(at, true));
  at += 8;
  const kinds: string[][] = [];
  for (let b = 0; b < buckets; b++) {
    at += 4; // the 32-bit key
    const cookie = view.getUint32(at, true);
    at += 4;
    const hasRuns = (cookie & 0xffff) === 12347;
    const size = hasRuns ? (cookie >>> 16) + 1 : view.getUint32(at, true);
    if (!hasRuns) at += 4;
    let runFlags: Uint8Array | undefined;
    if (hasRuns) {
      runFlags = blob.subarray(at, at + Math.ceil(size / 8));
      at += Math.ceil(size / 8);
    }
    const cardinalities: number[] = [];
    for (let c = 0; c < size; c++) cardinalities.push(view.getUint16(at + 4 * c + 2, true) + 1);
    at += 4 * size;
    if (!hasRuns || size >= 4) at += 4 * size; // offsets
    const bucket: string[] = [];
    for (let c = 0; c < size; c++) {
      const run = runFlags !== undefined && (runFlags[c >> 3]! & (1 << (c & 7))) !== 0;
      if (run) {
        const runs = view.getUint16(at, true);
        at += 2 + 4 * runs;
        bucket.push('run');
      } else if (cardinalities[c]! > 4096) {
        at += 8192;
        bucket.push('bitmap');
      } else {
        at += 2 * cardinalities[c]!;
        bucket.push('array');
      }
    }
    kinds.push(bucket);
  }
  if (at !== blob.length - 4) throw new Error(`containerKinds: read ${at} bytes of a ${blob.length}-byte blob (4 of CRC)`);
  return kinds;
}
