/**
 * Column types a decoder knows from writer schemas, for the staging step that creates or evolves
 * a table: a field the writer schema types (a timestamp-micros as TIMESTAMP WITH TIME ZONE, a
 * decimal(20,2) as DECIMAL(20,2), a long as BIGINT) should be read as that type rather than as
 * whatever DuckDB's JSON reader detects from the values (TIMESTAMP, VARCHAR, DOUBLE). Fields not
 * named are left to detection.
 */
import type { AvroNode } from './avro-logical-schema.js';

/** Records' value bytes as fetched (RawRecord.value, SourceRecord.raw). */
export type ValueBytes = readonly (Buffer | null | undefined)[];

export interface ValueColumnTypes {
  /** DuckDB types of value fields fixed by the writer schemas of these values (prepared ones). */
  columnTypes(values: ValueBytes): ReadonlyMap<string, string>;
}

/** A decoder that can hand out the compiled writer schemas of values (Avro). */
export interface WriterSchemaNodes {
  /** The writer schemas of these values, oldest registry id first; unprepared or unusable ones are left out. */
  writerNodes(values: ValueBytes): readonly AvroNode[];
}

export function hasColumnTypes(decoder: object): decoder is ValueColumnTypes {
  return typeof (decoder as Partial<ValueColumnTypes>).columnTypes === 'function';
}

export function hasWriterNodes(decoder: object): decoder is WriterSchemaNodes {
  return typeof (decoder as Partial<WriterSchemaNodes>).writerNodes === 'function';
}

/** One map from several schemas' field types; a later (newer) schema's type wins for a field both have. */
export function mergeColumnTypes(maps: Iterable<ReadonlyMap<string, string>>): Map<string, string> {
  const merged = new Map<string, string>();
  for (const map of maps) for (const [name, type] of map) merged.set(name, type);
  return merged;
}
