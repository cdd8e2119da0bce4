/**
 * Debezium change events → Flink-style row kinds. The envelope `{before, after, source, op, ts_ms}`
 * (optionally wrapped as `{schema, payload}` by the JSON converter) comes from an inner decoder
 * (JSON or Avro). c and r insert `after` (+I); u retracts `before` when it was captured (-U) and
 * adds `after` (+U); d retracts `before` (-D); t (truncate) has no row image and yields no rows,
 * so the consumer decides. A null Kafka value is the tombstone Debezium writes after a delete for
 * log compaction: it is skipped and counted.
 */
import { z } from 'zod';
import { DecodeError } from './decode-error.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

export type RowKind = '+I' | '-U' | '+U' | '-D';
export type DebeziumOp = 'c' | 'u' | 'd' | 'r' | 't';
export type RowImage = Record<string, unknown>;

export interface ChangeRow {
  readonly rowKind: RowKind;
  readonly row: RowImage;
}

export interface ChangeEvent {
  readonly op: DebeziumOp;
  /** When the connector processed the event (envelope ts_ms), if present. */
  readonly tsMs: number | null;
  readonly source: Readonly<Record<string, unknown>> | null;
  readonly rows: readonly ChangeRow[];
}

// Avro records decode as instances of generated classes, which z.record refuses as non-plain objects.
const OBJECT = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v), 'expected an object');
const IMAGE = OBJECT.nullable().optional();
const MILLIS = z.union([z.number(), z.bigint().transform(Number)]).nullable().optional();
const ENVELOPE = z.object({
  op: z.enum(['c', 'u', 'd', 'r', 't']),
  before: IMAGE,
  after: IMAGE,
  source: OBJECT.nullable().optional(),
  ts_ms: MILLIS,
});

export class DebeziumDecoder implements RecordDecoder<ChangeEvent> {
  readonly format: string;

  constructor(private readonly inner: RecordDecoder<Record<string, unknown>>) {
    this.format = `debezium-${inner.format}`;
  }

  async prepare(records: readonly RawRecord[]): Promise<void> {
    await this.inner.prepare?.(records);
  }

  decode(record: RawRecord): Decoded<ChangeEvent> {
    if (record.value === null) return { skip: 'tombstone' };
    const decoded = this.inner.decode(record);
    if ('skip' in decoded) return decoded;
    const parsed = ENVELOPE.safeParse(unwrapPayload(decoded.value));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? '' : ` (${issue.path.join('.')})`;
      throw new DecodeError(record, `not a Debezium envelope: ${issue?.message ?? 'unexpected shape'}${where}`);
    }
    const { op, before, after, source, ts_ms } = parsed.data;
    return { value: { op, tsMs: ts_ms ?? null, source: source ?? null, rows: rowsOf(record, op, before ?? null, after ?? null) } };
  }
}

function rowsOf(record: RawRecord, op: DebeziumOp, before: RowImage | null, after: RowImage | null): ChangeRow[] {
  switch (op) {
    case 'c':
    case 'r':
      return [{ rowKind: '+I', row: required(record, op, 'after', after) }];
    case 'u': {
      const rows: ChangeRow[] = before === null ? [] : [{ rowKind: '-U', row: before }];
      rows.push({ rowKind: '+U', row: required(record, op, 'after', after) });
      return rows;
    }
    case 'd':
      return [{ rowKind: '-D', row: required(record, op, 'before', before) }];
    case 't':
      return [];
  }
}

function required(record: RawRecord, op: DebeziumOp, field: 'before' | 'after', image: RowImage | null): RowImage {
  if (image === null) throw new DecodeError(record, `Debezium op "${op}" without a "${field}" row image`);
  return image;
}

/** The JSON converter with schemas enabled wraps the envelope as {schema, payload}. */
function unwrapPayload(value: Record<string, unknown>): unknown {
  const payload = value['payload'];
  return 'schema' in value && typeof payload === 'object' && payload !== null && !('op' in value) ? payload : value;
}
