/**
 * Kafka records from a DuckDB table or view, streamed chunk by chunk (memory stays bounded by a
 * chunk, whatever the relation's size). DuckDB writes the JSON itself (to_json), so BIGINT and
 * DECIMAL values keep every digit, timestamps are ISO-like text and nested types are JSON.
 */
import { quoteIdentifier, type DuckDbSession } from '../../src/duckdb/session.js';
import type { OutgoingRecord } from './producer-client.js';
import { resolveLayout, type RecordLayout, type ResolvedLayout } from './record-layout.js';

export async function* relationRecords(session: DuckDbSession, relation: string, layout: RecordLayout): AsyncGenerator<OutgoingRecord[]> {
  const from = quoteIdentifier(relation);
  const described = (await session.queryJson(`DESCRIBE SELECT * FROM ${from}`)) as Array<{ column_name: string }>;
  const resolved = resolveLayout(layout, described.map((d) => d.column_name), `relation "${relation}"`);
  const result = await session.connection.stream(`SELECT ${selectList(resolved).join(', ')} FROM ${from} AS r`);
  for await (const rows of result.yieldRowsJs()) {
    const records: OutgoingRecord[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) records[i] = toRecord(rows[i] as unknown[], resolved);
    yield records;
  }
}

function selectList(layout: ResolvedLayout): string[] {
  const column = (name: string): string => `r.${quoteIdentifier(name)}`;
  const object = (names: readonly string[]): string => `to_json(struct_pack(${names.map((n) => `${quoteIdentifier(n)} := ${column(n)}`).join(', ')}))::VARCHAR`;
  const key = layout.keyColumns.length === 0 ? 'NULL::VARCHAR' : layout.keyColumns.length === 1 ? `CAST(${column(layout.keyColumns[0] as string)} AS VARCHAR)` : object(layout.keyColumns);
  return [object(layout.valueColumns), key, ...layout.headerColumns.map((h) => `CAST(${column(h)} AS VARCHAR)`)];
}

function toRecord(row: readonly unknown[], layout: ResolvedLayout): OutgoingRecord {
  const headers = [...layout.headers];
  layout.headerColumns.forEach((name, index) => {
    const value = row[2 + index];
    if (typeof value === 'string') headers.push({ key: name, value: Buffer.from(value, 'utf8') });
  });
  const key = row[1];
  return { value: Buffer.from(row[0] as string, 'utf8'), key: typeof key === 'string' ? Buffer.from(key, 'utf8') : null, headers };
}
