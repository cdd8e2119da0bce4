/**
 * Debezium JSON change events written in the Kafka consumer's worker thread straight into the
 * lines the engine stages for the envelope decoder's values (debezium-envelope-decoder.ts): the
 * op, the row images and the source are copied as byte ranges of the fetched value
 * (debezium-envelope-bytes.ts), nothing is parsed into objects. A value that is not an envelope
 * read plainly gets no line: the main thread decodes it and lands it, or dead-letters it with its
 * reason, as it would without the worker. Every value's fetched bytes travel too, for dead letters.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import type { RecordHeader } from '../streaming-source.js';
import { ABSENT, DebeziumEnvelopeBytes } from './debezium-envelope-bytes.js';
import { DEBEZIUM_ENVELOPE_FIELDS } from './debezium-envelope-decoder.js';
import { checkedShape } from './json-object-check.js';
import type { LinePacker, LinePackerFactory, PackedDecodedLines } from './packed-batch.js';
import { LineWriter, stagedLineBound, partitionHead, travellingLines, writeValueLine } from './staged-line.js';
import { shapeWith } from './value-shape.js';

export const debeziumEnvelopeLines: LinePackerFactory = (batch) => new DebeziumLinePacker(batch);

/** `{"op":"`, `","before":`, `,"after":`, `,"source":`, `,"ts_ms":` as bytes. */
const [OP_FIELD, BEFORE_FIELD, AFTER_FIELD, SOURCE_FIELD, TS_MS_FIELD] = DEBEZIUM_ENVELOPE_FIELDS.map((name, i) =>
  Buffer.from(i === 0 ? `{"${name}":"` : `${i === 1 ? '"' : ''},"${name}":`, 'latin1'),
) as [Buffer, Buffer, Buffer, Buffer, Buffer];
const NULL_TEXT = Buffer.from('null');
const CLOSE_BRACE = 0x7d;

class DebeziumLinePacker implements LinePacker {
  private readonly out: LineWriter;
  private readonly head: Buffer;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly envelope = new DebeziumEnvelopeBytes();
  private readonly shapes: Float64Array;

  constructor(batch: Batch) {
    this.head = partitionHead(batch.partition);
    let total = 0;
    for (const m of batch.messages) total += stagedLineBound(this.head, m.key?.length ?? 0, (m.value?.length ?? 0) + 64);
    this.out = new LineWriter(total);
    this.starts = new Int32Array(batch.messages.length).fill(-1);
    this.ends = new Int32Array(batch.messages.length);
    this.shapes = new Float64Array(batch.messages.length);
  }

  /** Writes the value's line when it is an envelope read plainly; the value stays in the packed bytes either way. */
  takesValue(index: number, m: KafkaMessage, timestampMs: number, headers: readonly RecordHeader[]): boolean {
    const value = m.value as Buffer;
    if (!this.envelope.read(value)) return false;
    // The op decides which row images are staged, so it is part of the line's shape.
    this.shapes[index] = shapeWith(checkedShape(), this.envelope.op);
    const start = this.out.size;
    writeValueLine(this.out, this.head, { offset: m.offset, timestampMs, key: m.key ?? null, headers }, (out) => writeEnvelope(out, value, this.envelope));
    this.starts[index] = start;
    this.ends[index] = this.out.size;
    return false;
  }

  done(): PackedDecodedLines {
    return { kind: 'decoded', lines: travellingLines(this.out), starts: this.starts, ends: this.ends, fieldNames: DEBEZIUM_ENVELOPE_FIELDS, shapes: this.shapes };
  }
}

function writeEnvelope(out: LineWriter, value: Uint8Array, envelope: DebeziumEnvelopeBytes): boolean {
  out.all(OP_FIELD);
  out.byte(envelope.op);
  out.all(BEFORE_FIELD);
  writeRange(out, value, envelope.beforeStart, envelope.beforeEnd);
  out.all(AFTER_FIELD);
  writeRange(out, value, envelope.afterStart, envelope.afterEnd);
  out.all(SOURCE_FIELD);
  writeRange(out, value, envelope.sourceStart, envelope.sourceEnd);
  out.all(TS_MS_FIELD);
  writeRange(out, value, envelope.tsMsStart, envelope.tsMsEnd);
  out.byte(CLOSE_BRACE);
  return true;
}

function writeRange(out: LineWriter, value: Uint8Array, start: number, end: number): void {
  if (start === ABSENT) out.all(NULL_TEXT);
  else out.range(value, start, end);
}
