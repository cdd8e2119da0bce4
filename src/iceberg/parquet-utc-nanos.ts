/**
 * The UTC flag of nanosecond timestamp columns in a Parquet footer.
 *
 * Iceberg stores timestamptz_ns as Parquet `TIMESTAMP(NANOS, isAdjustedToUTC=true)` and
 * timestamp_ns as `TIMESTAMP(NANOS, isAdjustedToUTC=false)` (spec, Parquet mapping). DuckDB 1.5
 * has no nanosecond timestamp with time zone: its COPY writes every TIMESTAMP_NS column with
 * isAdjustedToUTC=false, and read_parquet reads a UTC-adjusted NANOS column as TIMESTAMP WITH
 * TIME ZONE, cutting each value to microseconds (with or without a `schema` type). So Thund
 * sets the flag on the timestamptz_ns columns of the files DuckDB wrote (setUtcNanosFlags), and
 * reads files holding UTC-adjusted NANOS columns from a private copy with the flag cleared
 * (clearUtcNanosFlags): DuckDB then reads TIMESTAMP_NS, every nanosecond kept, which Thund takes
 * as the UTC instant it is.
 *
 * The footer is Thrift's compact protocol, where a boolean struct field travels in the type
 * nibble of its field header (1 true, 2 false): the flip rewrites that one byte in place, nothing
 * else in the file moves. Only the schema list is walked; it comes first in FileMetaData.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { IcebergFormatError } from '../errors.js';
import { allFields } from './schema.js';
import type { Schema } from './types.js';
import { FooterEnd, ThriftCompactReader, T_BINARY, T_FALSE, T_I32, T_LIST, T_STRUCT, T_TRUE } from './thrift-compact.js';

const MAGIC = 'PAR1';
const TAIL = 8;

/** FileMetaData.schema; SchemaElement.name, .field_id and .logicalType; LogicalType.TIMESTAMP; TimestampType fields; TimeUnit.NANOS. */
const FILE_METADATA_SCHEMA = 2;
const ELEMENT_NAME = 4;
const ELEMENT_FIELD_ID = 9;
const ELEMENT_LOGICAL_TYPE = 10;
const LOGICAL_TIMESTAMP = 8;
const TIMESTAMP_IS_ADJUSTED_TO_UTC = 1;
const TIMESTAMP_UNIT = 2;
const UNIT_NANOS = 3;

/** A nanosecond TIMESTAMP column of a footer: its field id (if any), its flag, and where the flag sits. */
export interface NanosTimestampColumn {
  readonly name: string;
  readonly fieldId: number | undefined;
  readonly adjustedToUtc: boolean;
  /** Offset of the flag's field header byte from the start of the footer. */
  readonly flagOffset: number;
}

/** Thrown to stop the walk once the schema list is read. */
class SchemaDone extends Error {}

/** The nanosecond TIMESTAMP columns of one footer (`fetch` reads footer bytes by offset). */
async function nanosColumns(fetch: (offset: number, length: number) => Promise<Uint8Array>, length: number): Promise<NanosTimestampColumn[]> {
  const reader = new ThriftCompactReader(fetch, length);
  const found: NanosTimestampColumn[] = [];
  let schemaSeen = false;
  await reader.struct(async (fieldId, type) => {
    if (fieldId !== FILE_METADATA_SCHEMA || type !== T_LIST) return false;
    const { size, elementType } = await reader.listHeader();
    if (elementType !== T_STRUCT) throw new FooterEnd('schema list of a non-struct type');
    for (let i = 0; i < size; i++) {
      let name = '';
      let id: number | undefined;
      let flag: { offset: number; value: boolean } | undefined;
      let nanos = false;
      await reader.struct(async (f, t) => {
        if (f === ELEMENT_NAME && t === T_BINARY) {
          name = await reader.text();
          return true;
        }
        if (f === ELEMENT_FIELD_ID && t === T_I32) {
          id = await reader.zigzag();
          return true;
        }
        if (f !== ELEMENT_LOGICAL_TYPE || t !== T_STRUCT) return false;
        await reader.struct(async (lf, lt) => {
          if (lf !== LOGICAL_TIMESTAMP || lt !== T_STRUCT) return false;
          await reader.struct(async (tf, tt, headerOffset) => {
            if (tf === TIMESTAMP_IS_ADJUSTED_TO_UTC && (tt === T_TRUE || tt === T_FALSE)) {
              flag = { offset: headerOffset, value: tt === T_TRUE };
              return true;
            }
            if (tf !== TIMESTAMP_UNIT || tt !== T_STRUCT) return false;
            await reader.struct(async (uf) => {
              if (uf === UNIT_NANOS) nanos = true;
              return false;
            });
            return true;
          });
          return true;
        });
        return true;
      });
      if (nanos && flag !== undefined) found.push({ name, fieldId: id, adjustedToUtc: flag.value, flagOffset: flag.offset });
    }
    schemaSeen = true;
    // Everything needed is read: stop before the row groups.
    throw new SchemaDone();
  }).catch((error: unknown) => {
    if (!(error instanceof SchemaDone)) throw error;
  });
  if (!schemaSeen) throw new FooterEnd('no schema in the footer');
  return found;
}

interface OpenFooter {
  readonly handle: FileHandle;
  readonly start: number;
  readonly length: number;
}

/** The footer's place in a Parquet file; undefined when the file is not plain Parquet (no PAR1 tail, e.g. Puffin). */
async function footerOf(handle: FileHandle): Promise<OpenFooter | undefined> {
  const { size } = await handle.stat();
  if (size < 2 * MAGIC.length + 4) return undefined;
  const tail = Buffer.alloc(TAIL);
  await handle.read(tail, 0, TAIL, size - TAIL);
  if (tail.toString('latin1', 4) !== MAGIC) return undefined;
  const length = tail.readUInt32LE(0);
  const start = size - TAIL - length;
  if (length === 0 || start < MAGIC.length) return undefined;
  return { handle, start, length };
}

async function withFooter<T>(path: string, flags: 'r' | 'r+', body: (footer: OpenFooter) => Promise<T>): Promise<T | undefined> {
  const handle = await open(path, flags);
  try {
    const footer = await footerOf(handle);
    return footer === undefined ? undefined : await body(footer);
  } finally {
    await handle.close();
  }
}

async function columnsIn(path: string, footer: OpenFooter): Promise<NanosTimestampColumn[]> {
  const fetch = async (offset: number, length: number): Promise<Uint8Array> => {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await footer.handle.read(buffer, 0, length, footer.start + offset);
    if (bytesRead !== length) throw new FooterEnd('short read');
    return buffer;
  };
  try {
    return await nanosColumns(fetch, footer.length);
  } catch (error) {
    if (!(error instanceof FooterEnd)) throw error;
    throw new IcebergFormatError(`Cannot read the Parquet footer of ${path}: ${error.message}`, { context: { file: path } });
  }
}

/** The nanosecond TIMESTAMP columns of a local Parquet file ([] for a file that is not Parquet). */
export async function nanosTimestampColumns(path: string): Promise<NanosTimestampColumn[]> {
  return (await withFooter(path, 'r', (footer) => columnsIn(path, footer))) ?? [];
}

async function rewriteFlags(path: string, pick: (column: NanosTimestampColumn) => boolean, value: boolean): Promise<number> {
  const changed = await withFooter(path, 'r+', async (footer) => {
    const columns = (await columnsIn(path, footer)).filter((c) => c.adjustedToUtc !== value && pick(c));
    for (const column of columns) {
      const at = footer.start + column.flagOffset;
      const byte = Buffer.alloc(1);
      await footer.handle.read(byte, 0, 1, at);
      byte[0] = ((byte[0] as number) & 0xf0) | (value ? T_TRUE : T_FALSE);
      await footer.handle.write(byte, 0, 1, at);
    }
    if (columns.length > 0) {
      // DuckDB's external file cache checks a file by size and modification time in whole
      // seconds: a file it read within the second, changed in place at the same size, would be
      // served stale. Moving the time a second on makes the change visible.
      const { atime, mtime } = await footer.handle.stat();
      await footer.handle.utimes(atime, new Date(Math.max(Date.now(), mtime.getTime()) + 1000));
    }
    return columns.length;
  });
  return changed ?? 0;
}

/**
 * Marks the nanosecond TIMESTAMP columns whose field id is in `fieldIds` as adjusted to UTC
 * (Iceberg's timestamptz_ns), in place. Returns how many columns changed.
 */
export function setUtcNanosFlags(path: string, fieldIds: ReadonlySet<number>): Promise<number> {
  return rewriteFlags(path, (c) => c.fieldId !== undefined && fieldIds.has(c.fieldId), true);
}

/** Clears the UTC flag of every nanosecond TIMESTAMP column, in place (for DuckDB's reads). Returns how many changed. */
export function clearUtcNanosFlags(path: string): Promise<number> {
  return rewriteFlags(path, () => true, false);
}

/** Whether a local file is Parquet with a UTC-adjusted nanosecond TIMESTAMP column (which DuckDB would cut to µs). */
export async function hasUtcNanos(path: string): Promise<boolean> {
  return (await nanosTimestampColumns(path)).some((c) => c.adjustedToUtc);
}

/**
 * After DuckDB wrote `paths` for a table of `schema`: the timestamptz_ns columns (top level or
 * nested) marked UTC-adjusted, as the spec stores them. Nothing is read when the schema has none.
 */
export async function markTimestamptzNanos(schema: Pick<Schema, 'fields'>, paths: readonly string[]): Promise<void> {
  const ids = new Set(allFields(schema).filter(({ field }) => field.type.kind === 'timestamptz_ns').map(({ field }) => field.id));
  if (ids.size === 0) return;
  for (const path of paths) await setUtcNanosFlags(path, ids);
}
