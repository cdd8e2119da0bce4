/**
 * Debezium change events as pipelines read them: the envelope itself, `{op, before, after,
 * source, ts_ms}` (unwrapped from the JSON converter's `{schema, payload}`), checked like the row
 * decoder checks it (an op, the row images that op needs), so `apply_changes` with
 * `change_format: debezium` reads a topic as it reads the same events from files. Tombstones
 * (null values after a delete) are skipped and counted.
 */
import { DebeziumDecoder, type ChangeEvent } from './debezium-decoder.js';
import type { RecordDecoder } from './record-decoder.js';

export function debeziumEnvelopeDecoder(inner: RecordDecoder<Record<string, unknown>>): RecordDecoder<Record<string, unknown>> {
  const events = new DebeziumDecoder(inner);
  return {
    format: events.format,
    prepare: (records) => events.prepare(records),
    decode: (record) => {
      const decoded = events.decode(record);
      return 'skip' in decoded ? decoded : { value: envelopeOf(decoded.value) };
    },
  };
}

function envelopeOf(event: ChangeEvent): Record<string, unknown> {
  const image = (kind: string): Record<string, unknown> | null => event.rows.find((r) => r.rowKind === kind)?.row ?? null;
  const before = image('-U') ?? image('-D');
  const after = image('+I') ?? image('+U');
  return { op: event.op, before, after, source: event.source, ts_ms: event.tsMs };
}
