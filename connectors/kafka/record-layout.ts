/**
 * How a row becomes a Kafka record: the value is the row as a JSON object (without header
 * columns), the key the text of one key column or a JSON object of several (null when a single key
 * column is null, or when no key columns are named: the producer then spreads records over
 * partitions), and headers are fixed texts plus the text of named columns (a null column value
 * sends no header).
 */
import { InvalidInputError } from '../../src/errors.js';

export interface RecordLayout {
  readonly keyColumns?: readonly string[];
  readonly headerColumns?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ResolvedLayout {
  readonly keyColumns: readonly string[];
  readonly headerColumns: readonly string[];
  readonly valueColumns: readonly string[];
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Buffer }>;
}

/** Checks the named columns against what the rows have (exact names) and splits them. */
export function resolveLayout(layout: RecordLayout, columns: readonly string[], what: string): ResolvedLayout {
  const known = new Set(columns);
  for (const [option, names] of [['key', layout.keyColumns ?? []], ['header', layout.headerColumns ?? []]] as const) {
    const missing = names.filter((name) => !known.has(name));
    if (missing.length > 0) {
      throw new InvalidInputError(`Kafka sink: ${option} column ${missing.map((m) => `"${m}"`).join(', ')} is not a column of ${what} (columns: ${columns.join(', ')})`, {
        context: { column: missing[0] },
      });
    }
  }
  const headerColumns = [...new Set(layout.headerColumns ?? [])];
  const valueColumns = columns.filter((c) => !headerColumns.includes(c));
  if (valueColumns.length === 0) throw new InvalidInputError(`Kafka sink: every column of ${what} is a header column; nothing is left for the value`);
  return {
    keyColumns: [...new Set(layout.keyColumns ?? [])],
    headerColumns,
    valueColumns,
    headers: Object.entries(layout.headers ?? {}).map(([key, value]) => ({ key, value: Buffer.from(value, 'utf8') })),
  };
}
