/**
 * A Parquet footer (FileMetaData) decoded into what registering a file needs: the schema tree
 * (names, field ids, physical and logical types) and, per row group, each leaf column's size,
 * value count and statistics (raw min/max bytes, null count). The footer is fetched with ranged
 * reads through `fetch` (the file's last 8 bytes, then the footer), never the whole file.
 */
import { IcebergFormatError } from '../errors.js';
import { FooterEnd, ThriftCompactReader, T_BINARY, T_I32, T_I64, T_LIST, T_STRUCT, T_TRUE, T_FALSE, T_BYTE } from './thrift-compact.js';

export type PhysicalType = 'BOOLEAN' | 'INT32' | 'INT64' | 'INT96' | 'FLOAT' | 'DOUBLE' | 'BYTE_ARRAY' | 'FIXED_LEN_BYTE_ARRAY';
const PHYSICAL: readonly PhysicalType[] = ['BOOLEAN', 'INT32', 'INT64', 'INT96', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'];

export type TimeUnit = 'MILLIS' | 'MICROS' | 'NANOS';

/** The annotations Thund reads, from LogicalType or, for older writers, ConvertedType. */
export type LogicalAnnotation =
  | { readonly kind: 'string' | 'map' | 'list' | 'enum' | 'date' | 'json' | 'bson' | 'uuid' | 'unknown' | 'float16' }
  | { readonly kind: 'decimal'; readonly scale: number; readonly precision: number }
  | { readonly kind: 'time' | 'timestamp'; readonly adjustedToUtc: boolean; readonly unit: TimeUnit }
  | { readonly kind: 'integer'; readonly bitWidth: number; readonly signed: boolean };

export interface ParquetSchemaNode {
  readonly name: string;
  readonly repetition: 'required' | 'optional' | 'repeated';
  readonly fieldId?: number;
  /** Undefined for a group. */
  readonly physicalType?: PhysicalType;
  readonly typeLength?: number;
  readonly logical?: LogicalAnnotation;
  readonly children: readonly ParquetSchemaNode[];
  /** A leaf's index among the column chunks of a row group. */
  readonly columnIndex?: number;
}

export interface ColumnChunkStats {
  readonly numValues: bigint;
  readonly compressedSize: bigint;
  readonly nullCount?: bigint;
  readonly min?: Uint8Array;
  readonly max?: Uint8Array;
}

export interface ParquetRowGroup {
  readonly numRows: bigint;
  /** By column index (ParquetSchemaNode.columnIndex). */
  readonly columns: readonly ColumnChunkStats[];
}

export interface ParquetFooter {
  /** The root's children: the file's top-level columns. */
  readonly columns: readonly ParquetSchemaNode[];
  readonly numRows: bigint;
  readonly rowGroups: readonly ParquetRowGroup[];
  /** Bytes of the footer itself (FileMetaData). */
  readonly length: number;
}

interface RawElement {
  name: string;
  type?: number;
  typeLength?: number;
  repetition?: number;
  numChildren?: number;
  convertedType?: number;
  scale?: number;
  precision?: number;
  fieldId?: number;
  logical?: LogicalAnnotation;
}

const MAGIC = 'PAR1';

/** Reads and decodes the footer of a Parquet file of `size` bytes; `fetch(offset, length)` reads a range of the file. */
export async function readParquetFooter(location: string, size: number, fetch: (offset: number, length: number) => Promise<Uint8Array>): Promise<ParquetFooter> {
  const bad = (why: string) => new IcebergFormatError(`${location} is not a readable Parquet file: ${why}`, { context: { file: location } });
  if (size < 12) throw bad(`${size} bytes`);
  const tail = await fetch(size - 8, 8);
  if (new TextDecoder().decode(tail.subarray(4, 8)) !== MAGIC) throw bad('no PAR1 magic at the end');
  const length = new DataView(tail.buffer, tail.byteOffset, 4).getUint32(0, true);
  if (length === 0 || length > size - 12) throw bad(`footer length ${length} does not fit the file`);
  const footer = await fetch(size - 8 - length, length);
  if (footer.length !== length) throw bad('short read of the footer');
  try {
    return await decodeFooter(footer);
  } catch (error) {
    if (error instanceof FooterEnd) throw bad(error.message);
    throw error;
  }
}

async function decodeFooter(bytes: Uint8Array): Promise<ParquetFooter> {
  const reader = new ThriftCompactReader(async (offset, length) => bytes.subarray(offset, offset + length), bytes.length);
  const elements: RawElement[] = [];
  const rowGroups: ParquetRowGroup[] = [];
  let numRows = 0n;
  await reader.struct(async (id, type) => {
    if (id === 2 && type === T_LIST) {
      await eachListItem(reader, async () => elements.push(await readElement(reader)));
      return true;
    }
    if (id === 3 && type === T_I64) {
      numRows = await reader.i64();
      return true;
    }
    if (id === 4 && type === T_LIST) {
      await eachListItem(reader, async () => rowGroups.push(await readRowGroup(reader)));
      return true;
    }
    return false;
  });
  if (elements.length === 0) throw new FooterEnd('no schema in the footer');
  let next = 1;
  let leaves = 0;
  const build = (element: RawElement): ParquetSchemaNode => {
    const children: ParquetSchemaNode[] = [];
    for (let i = 0; i < (element.numChildren ?? 0); i++) {
      const child = elements[next++];
      if (child === undefined) throw new FooterEnd('schema ends before its children');
      children.push(build(child));
    }
    const group = element.numChildren !== undefined && element.numChildren > 0;
    const physicalType = group || element.type === undefined ? undefined : PHYSICAL[element.type];
    const logical = element.logical ?? convertedAnnotation(element);
    return {
      name: element.name,
      repetition: element.repetition === 1 ? 'optional' : element.repetition === 2 ? 'repeated' : 'required',
      ...(element.fieldId === undefined ? {} : { fieldId: element.fieldId }),
      ...(physicalType === undefined ? {} : { physicalType }),
      ...(element.typeLength === undefined ? {} : { typeLength: element.typeLength }),
      ...(logical === undefined ? {} : { logical }),
      children,
      ...(group ? {} : { columnIndex: leaves++ }),
    };
  };
  const root = build(elements[0]!);
  return { columns: root.children, numRows, rowGroups, length: bytes.length };
}

async function eachListItem(reader: ThriftCompactReader, item: () => Promise<unknown>): Promise<void> {
  const { size, elementType } = await reader.listHeader();
  if (elementType !== T_STRUCT) throw new FooterEnd('a list of structs holds another type');
  for (let i = 0; i < size; i++) await item();
}

async function readElement(reader: ThriftCompactReader): Promise<RawElement> {
  const element: RawElement = { name: '' };
  await reader.struct(async (id, type) => {
    if (id === 4 && type === T_BINARY) element.name = await reader.text();
    else if (id === 10 && type === T_STRUCT) element.logical = await readLogicalType(reader);
    else if (type !== T_I32) return false;
    else {
      const value = await reader.zigzag();
      if (id === 1) element.type = value;
      else if (id === 2) element.typeLength = value;
      else if (id === 3) element.repetition = value;
      else if (id === 5) element.numChildren = value;
      else if (id === 6) element.convertedType = value;
      else if (id === 7) element.scale = value;
      else if (id === 8) element.precision = value;
      else if (id === 9) element.fieldId = value;
    }
    return true;
  });
  return element;
}

const SIMPLE_LOGICAL: Readonly<Record<number, LogicalAnnotation>> = {
  1: { kind: 'string' },
  2: { kind: 'map' },
  3: { kind: 'list' },
  4: { kind: 'enum' },
  6: { kind: 'date' },
  11: { kind: 'unknown' },
  12: { kind: 'json' },
  13: { kind: 'bson' },
  14: { kind: 'uuid' },
  15: { kind: 'float16' },
};

async function readLogicalType(reader: ThriftCompactReader): Promise<LogicalAnnotation | undefined> {
  let logical: LogicalAnnotation | undefined;
  await reader.struct(async (id, type) => {
    if (type !== T_STRUCT) return false;
    const fields = new Map<number, number | boolean>();
    let unit: TimeUnit | undefined;
    await reader.struct(async (f, t) => {
      if (t === T_TRUE || t === T_FALSE) fields.set(f, t === T_TRUE);
      else if (t === T_I32 || t === T_BYTE) fields.set(f, t === T_BYTE ? ((await reader.byte()) << 24) >> 24 : await reader.zigzag());
      else if (t === T_STRUCT && f === 2) {
        await reader.struct(async (u) => {
          unit = u === 1 ? 'MILLIS' : u === 2 ? 'MICROS' : u === 3 ? 'NANOS' : unit;
          return false;
        });
      } else return false;
      return true;
    });
    if (id === 5) logical = { kind: 'decimal', scale: Number(fields.get(1) ?? 0), precision: Number(fields.get(2) ?? 0) };
    else if ((id === 7 || id === 8) && unit !== undefined) logical = { kind: id === 7 ? 'time' : 'timestamp', adjustedToUtc: fields.get(1) === true, unit };
    else if (id === 10) logical = { kind: 'integer', bitWidth: Number(fields.get(1) ?? 0), signed: fields.get(2) === true };
    else logical = SIMPLE_LOGICAL[id];
    return true;
  });
  return logical;
}

/** ConvertedType (Parquet's older annotation) as a LogicalAnnotation. */
function convertedAnnotation(element: RawElement): LogicalAnnotation | undefined {
  const c = element.convertedType;
  if (c === undefined) return undefined;
  const integer = (bitWidth: number, signed: boolean): LogicalAnnotation => ({ kind: 'integer', bitWidth, signed });
  switch (c) {
    case 0:
      return { kind: 'string' };
    case 1:
    case 2:
      return { kind: 'map' };
    case 3:
      return { kind: 'list' };
    case 4:
      return { kind: 'enum' };
    case 5:
      return { kind: 'decimal', scale: element.scale ?? 0, precision: element.precision ?? 0 };
    case 6:
      return { kind: 'date' };
    case 7:
    case 8:
      return { kind: 'time', adjustedToUtc: true, unit: c === 7 ? 'MILLIS' : 'MICROS' };
    case 9:
    case 10:
      return { kind: 'timestamp', adjustedToUtc: true, unit: c === 9 ? 'MILLIS' : 'MICROS' };
    case 11:
    case 12:
    case 13:
    case 14:
      return integer(8 << (c - 11), false);
    case 15:
    case 16:
    case 17:
    case 18:
      return integer(8 << (c - 15), true);
    case 19:
      return { kind: 'json' };
    case 20:
      return { kind: 'bson' };
    default:
      return undefined;
  }
}

async function readRowGroup(reader: ThriftCompactReader): Promise<ParquetRowGroup> {
  const columns: ColumnChunkStats[] = [];
  let numRows = 0n;
  await reader.struct(async (id, type) => {
    if (id === 1 && type === T_LIST) {
      await eachListItem(reader, async () => columns.push(await readColumnChunk(reader)));
      return true;
    }
    if (id === 3 && type === T_I64) {
      numRows = await reader.i64();
      return true;
    }
    return false;
  });
  return { numRows, columns };
}

async function readColumnChunk(reader: ThriftCompactReader): Promise<ColumnChunkStats> {
  let stats: ColumnChunkStats = { numValues: 0n, compressedSize: 0n };
  await reader.struct(async (id, type) => {
    if (id !== 3 || type !== T_STRUCT) return false;
    stats = await readColumnMetaData(reader);
    return true;
  });
  return stats;
}

async function readColumnMetaData(reader: ThriftCompactReader): Promise<ColumnChunkStats> {
  const out: { -readonly [K in keyof ColumnChunkStats]: ColumnChunkStats[K] } = { numValues: 0n, compressedSize: 0n };
  await reader.struct(async (id, type) => {
    if (id === 5 && type === T_I64) out.numValues = await reader.i64();
    else if (id === 7 && type === T_I64) out.compressedSize = await reader.i64();
    else if (id === 12 && type === T_STRUCT) {
      // Only min_value/max_value (5, 6): the deprecated min/max (1, 2) were written in signed byte order.
      await reader.struct(async (s, t) => {
        if (s === 3 && t === T_I64) out.nullCount = await reader.i64();
        else if (s === 5 && t === T_BINARY) out.max = await reader.binary();
        else if (s === 6 && t === T_BINARY) out.min = await reader.binary();
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  return out;
}
