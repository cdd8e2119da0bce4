/**
 * Debezium change events as append-only rows for `thund serve`: each event lands one row, the
 * row image with the event's op (c, r, u, d) in an extra column. c, r and u land the `after`
 * image; d lands the `before` image (the deleted row's last state, so its key is known). A
 * truncate (t) has no row image and is skipped and counted, as tombstones are. Applying the
 * changes to a table (upsert/delete by key) is the apply-changes flow's job, not this decoder's.
 * Over Avro, the row columns take the types of the envelope's `after` (else `before`) record.
 */
import { hasWriterNodes, mergeColumnTypes, type ValueBytes, type ValueColumnTypes } from './avro-logical-columns.js';
import { columnTypesOf } from './avro-logical-schema.js';
import { DecodeError } from './decode-error.js';
import { DebeziumDecoder, type ChangeRow } from './debezium-decoder.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

export const DEFAULT_OP_COLUMN = '_op';

export class DebeziumRowDecoder implements RecordDecoder<Record<string, unknown>>, ValueColumnTypes {
  readonly format: string;
  private readonly events: DebeziumDecoder;

  constructor(
    private readonly inner: RecordDecoder<Record<string, unknown>>,
    private readonly opColumn: string = DEFAULT_OP_COLUMN,
  ) {
    this.events = new DebeziumDecoder(inner);
    this.format = this.events.format;
  }

  async prepare(records: readonly RawRecord[]): Promise<void> {
    await this.events.prepare(records);
  }

  decode(record: RawRecord): Decoded<Record<string, unknown>> {
    const decoded = this.events.decode(record);
    if ('skip' in decoded) return decoded;
    const { op, rows } = decoded.value;
    const image = landedImage(rows);
    if (image === undefined) return { skip: op === 't' ? 'truncate' : 'no row image' };
    if (Object.hasOwn(image, this.opColumn)) {
      throw new DecodeError(record, `the row image has a field named ${this.opColumn}, the column that holds the Debezium op; choose another op column`);
    }
    return { value: { ...image, [this.opColumn]: op } };
  }

  /** The row image's field types from the writer schemas (Avro); none for an inner decoder without schemas (JSON). */
  columnTypes(values: ValueBytes): ReadonlyMap<string, string> {
    if (!hasWriterNodes(this.inner)) return new Map();
    const images = this.inner.writerNodes(values).map((envelope) => envelope.fields?.get('after') ?? envelope.fields?.get('before'));
    const types = mergeColumnTypes(images.map((image) => (image === undefined ? new Map<string, string>() : columnTypesOf(image))));
    types.delete(this.opColumn);
    if (images.length > 0) types.set(this.opColumn, 'VARCHAR');
    return types;
  }
}

/** The +I/+U image, else the -D image (a delete); -U (the before image of an update) is not landed. */
function landedImage(rows: readonly ChangeRow[]): Record<string, unknown> | undefined {
  return (rows.find((r) => r.rowKind === '+I' || r.rowKind === '+U') ?? rows.find((r) => r.rowKind === '-D'))?.row;
}
