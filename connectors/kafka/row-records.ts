/**
 * Kafka records from rows already in memory (JSON rows, or Arrow rows via `row.toJSON()`):
 * bigint stays an exact JSON integer, Date becomes ISO-8601 text and bytes base64, as DuckDB's
 * to_json would write them.
 */
import { stringifyJson } from '../../src/iceberg/json.js';
import type { OutgoingRecord } from './producer-client.js';
import { resolveLayout, type RecordLayout, type ResolvedLayout } from './record-layout.js';

export type Row = Readonly<Record<string, unknown>>;

export async function* rowRecords(rows: AsyncIterable<Row> | Iterable<Row>, layout: RecordLayout, chunkRows = 2_048): AsyncGenerator<OutgoingRecord[]> {
  let resolved: ResolvedLayout | undefined;
  let chunk: OutgoingRecord[] = [];
  for await (const row of rows) {
    resolved ??= resolveLayout(layout, Object.keys(row), 'the rows');
    chunk.push(rowRecord(row, resolved));
    if (chunk.length >= chunkRows) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

export function rowRecord(row: Row, layout: ResolvedLayout): OutgoingRecord {
  const value: Record<string, unknown> = {};
  for (const name of layout.valueColumns) if (Object.hasOwn(row, name)) value[name] = jsonSafe(row[name]);
  const headers = [...layout.headers];
  for (const name of layout.headerColumns) {
    const text = keyText(row[name]);
    if (text !== null) headers.push({ key: name, value: Buffer.from(text, 'utf8') });
  }
  return { value: Buffer.from(stringifyJson(value), 'utf8'), key: keyOf(row, layout.keyColumns), headers };
}

function keyOf(row: Row, columns: readonly string[]): Buffer | null {
  if (columns.length === 0) return null;
  if (columns.length === 1) {
    const text = keyText(row[columns[0] as string]);
    return text === null ? null : Buffer.from(text, 'utf8');
  }
  return Buffer.from(stringifyJson(Object.fromEntries(columns.map((c) => [c, jsonSafe(row[c])]))), 'utf8');
}

/** A scalar as text (strings as they are), anything else as JSON; null for null or absent. */
function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return stringifyJson(jsonSafe(value));
}

function jsonSafe(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  return value;
}
