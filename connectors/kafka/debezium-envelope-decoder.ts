/**
 * Debezium change events as pipelines read them: the envelope itself, `{op, before, after,
 * source, ts_ms}` (unwrapped from the JSON converter's `{schema, payload}`), checked like the row
 * decoder checks it (an op, the row images that op needs), so `apply_changes` with
 * `change_format: debezium` reads a topic as it reads the same events from files. Tombstones
 * (null values after a delete) are skipped and counted. Over JSON, the Kafka consumer's worker
 * usually wrote a record's staged line already (debezium-line-packer.ts): such a record is
 * decoded only if something reads its value.
 */
import { DebeziumDecoder, type ChangeEvent } from './debezium-decoder.js';
import type { RecordDecoder } from './record-decoder.js';

/** The envelope's fields, in the order its value (and so its staged line) has them. */
export const DEBEZIUM_ENVELOPE_FIELDS = ['op', 'before', 'after', 'source', 'ts_ms'] as const;

export function debeziumEnvelopeDecoder(inner: RecordDecoder<Record<string, unknown>>): RecordDecoder<Record<string, unknown>> {
  const events = new DebeziumDecoder(inner);
  return {
    format: events.format,
    prepare: (records) => events.prepare(records),
    passesAsLine: (record) => record.stagedLine !== undefined,
    decode: (record) => {
      const decoded = events.decode(record);
      return 'skip' in decoded ? decoded : { value: envelopeOf(decoded.value) };
    },
  };
}

function envelopeOf(event: ChangeEvent): Record<(typeof DEBEZIUM_ENVELOPE_FIELDS)[number], unknown> {
  const image = (kind: string): Record<string, unknown> | null => event.rows.find((r) => r.rowKind === kind)?.row ?? null;
  const before = image('-U') ?? image('-D');
  const after = image('+I') ?? image('+U');
  return { op: event.op, before, after, source: event.source, ts_ms: event.tsMs };
}
