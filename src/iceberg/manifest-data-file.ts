/**
 * The `data_file` struct of a decoded manifest entry (spec §3.2, record r2) read by field id into
 * a DataFile. Optional fields absent from the writer's schema or null stay undefined.
 */
import { IcebergFormatError } from '../errors.js';
import type { DataFile, DataFileContent, FileFormat, PartitionValues } from './data-file.js';
import type { RecordView } from './avro/field-view.js';

export interface DataFileContext {
  readonly where: string;
  readonly specId: number;
  readonly partition: PartitionValues;
  readonly parseFormat: (text: string) => FileFormat;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function readDataFile(view: RecordView, record: unknown, ctx: DataFileContext): DataFile {
  const { where } = ctx;
  const content = Number(view.get(record, 134, 'content') ?? 0);
  if (content !== 0 && content !== 1 && content !== 2) {
    throw new IcebergFormatError(`${where}: invalid data file content ${content}`, { context: { file: where } });
  }
  const file: Mutable<DataFile> = {
    content: content as DataFileContent,
    filePath: String(view.require(record, 100, 'file_path')),
    fileFormat: ctx.parseFormat(String(view.require(record, 101, 'file_format'))),
    specId: ctx.specId,
    partition: ctx.partition,
    recordCount: toBigInt(view.require(record, 103, 'record_count')),
    fileSizeInBytes: toBigInt(view.require(record, 104, 'file_size_in_bytes')),
  };
  const columnSizes = intMap(view.get(record, 108, 'column_sizes'), toBigInt);
  if (columnSizes) file.columnSizes = columnSizes;
  const valueCounts = intMap(view.get(record, 109, 'value_counts'), toBigInt);
  if (valueCounts) file.valueCounts = valueCounts;
  const nullValueCounts = intMap(view.get(record, 110, 'null_value_counts'), toBigInt);
  if (nullValueCounts) file.nullValueCounts = nullValueCounts;
  const nanValueCounts = intMap(view.get(record, 137, 'nan_value_counts'), toBigInt);
  if (nanValueCounts) file.nanValueCounts = nanValueCounts;
  const lowerBounds = intMap(view.get(record, 125, 'lower_bounds'), toBytes);
  if (lowerBounds) file.lowerBounds = lowerBounds;
  const upperBounds = intMap(view.get(record, 128, 'upper_bounds'), toBytes);
  if (upperBounds) file.upperBounds = upperBounds;
  const keyMetadata = view.get(record, 131, 'key_metadata');
  if (keyMetadata !== null) file.keyMetadata = toBytes(keyMetadata);
  const splitOffsets = view.get(record, 132, 'split_offsets');
  if (splitOffsets !== null) file.splitOffsets = (splitOffsets as unknown[]).map(toBigInt);
  // PyIceberg declares equality_ids items as long; the ids are ints either way.
  const equalityIds = view.get(record, 135, 'equality_ids');
  if (equalityIds !== null) file.equalityIds = (equalityIds as unknown[]).map((v) => Number(v));
  const sortOrderId = view.get(record, 140, 'sort_order_id');
  if (sortOrderId !== null) file.sortOrderId = Number(sortOrderId);
  const firstRowId = view.get(record, 142, 'first_row_id');
  if (firstRowId !== null) file.firstRowId = toBigInt(firstRowId);
  const referencedDataFile = view.get(record, 143, 'referenced_data_file');
  if (referencedDataFile !== null) file.referencedDataFile = String(referencedDataFile);
  const contentOffset = view.get(record, 144, 'content_offset');
  if (contentOffset !== null) file.contentOffset = toBigInt(contentOffset);
  const contentSize = view.get(record, 145, 'content_size_in_bytes');
  if (contentSize !== null) file.contentSizeInBytes = toBigInt(contentSize);
  return file;
}

/** A metrics map: an Avro array of {key, value} records (entries may be null in some writers). */
function intMap<V>(value: unknown, convert: (v: unknown) => V): Map<number, V> | undefined {
  if (value === null) return undefined;
  const out = new Map<number, V>();
  for (const item of value as ({ key: unknown; value: unknown } | null)[]) {
    if (item === null || item.key === null || item.value === null) continue;
    out.set(Number(item.key), convert(item.value));
  }
  return out;
}

function toBigInt(v: unknown): bigint {
  return typeof v === 'bigint' ? v : BigInt(v as number);
}

function toBytes(v: unknown): Uint8Array {
  return new Uint8Array(v as Uint8Array);
}
