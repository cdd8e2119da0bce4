/**
 * Confluent Avro values decoded in the Kafka consumer's worker thread, straight into the lines
 * the engine stages (staged-line.ts), so the main thread builds no object per record. The decoder
 * is the one the main thread runs (ConfluentAvroDecoder made JSON-safe), with a registry client
 * of the worker's own. A value that does not decode, or has a field named like a coordinate
 * column, gets no line: the main thread decodes it again and dead-letters it with its reason, as
 * it would without the worker. Every value's fetched bytes travel too, for dead letters and the
 * writer schemas' column types.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { RECORD_COORDINATE_FIELDS, type RecordHeader } from '../streaming-source.js';
import { ConfluentAvroDecoder } from './avro-decoder.js';
import { parseConfluentWire } from './confluent-wire.js';
import { JsonSafeDecoder } from './json-safe-values.js';
import type { LinePacker, LinePackerFactory, PackedDecodedLines } from './packed-batch.js';
import { NO_HEADERS, type RawRecord } from './raw-record.js';
import { SchemaRegistryClient, type SchemaRegistryOptions } from './schema-registry-client.js';
import { LineWriter, topicHead, writeDecodedLine } from './staged-line.js';

export class AvroLineStager {
  private readonly decoder: JsonSafeDecoder;

  constructor(registry: SchemaRegistryOptions) {
    this.decoder = new JsonSafeDecoder(new ConfluentAvroDecoder(new SchemaRegistryClient(registry)));
  }

  /**
   * The packer of this batch's lines once its writer schemas are fetched; none when the registry
   * fails, so the main thread decodes the batch and reports the failure as it does without the worker.
   */
  async linesOf(batch: Batch): Promise<LinePackerFactory | undefined> {
    try {
      await this.decoder.prepare(batch.messages.map((m) => new MessageRecord(batch, m, NO_HEADERS)));
    } catch {
      return undefined;
    }
    return (prepared) => new AvroLinePacker(prepared, this.decoder);
  }
}

class AvroLinePacker implements LinePacker {
  private readonly out: LineWriter;
  private readonly head: Buffer;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly fieldNames = new Set<string>();
  /** Writer schemas whose fields are in fieldNames already: a record's top-level fields are its schema's. */
  private readonly schemasNamed = new Set<number>();

  constructor(
    private readonly batch: Batch,
    private readonly decoder: JsonSafeDecoder,
  ) {
    let total = 0;
    for (const m of batch.messages) total += 2 * (m.value?.length ?? 0) + (m.key?.length ?? 0) + 128;
    this.out = new LineWriter(total);
    this.head = topicHead(batch.topic);
    this.starts = new Int32Array(batch.messages.length).fill(-1);
    this.ends = new Int32Array(batch.messages.length);
  }

  /** Writes the value's line when it decodes; the value stays in the packed bytes either way. */
  takesValue(index: number, m: KafkaMessage, timestampMs: number, headers: readonly RecordHeader[]): boolean {
    let value: Record<string, unknown>;
    try {
      const decoded = this.decoder.decode(new MessageRecord(this.batch, m, headers));
      if ('skip' in decoded) return false;
      value = decoded.value;
    } catch {
      return false;
    }
    for (const field of RECORD_COORDINATE_FIELDS) if (Object.hasOwn(value, field)) return false;
    const wire = parseConfluentWire(m.value as Buffer);
    if ('schemaId' in wire && !this.schemasNamed.has(wire.schemaId)) {
      this.schemasNamed.add(wire.schemaId);
      for (const name of Object.keys(value)) this.fieldNames.add(name);
    }
    this.starts[index] = this.out.size;
    writeDecodedLine(this.out, this.head, { partition: this.batch.partition, offset: m.offset, timestampMs, key: m.key ?? null, headers }, JSON.stringify(value));
    this.ends[index] = this.out.size;
    return false;
  }

  done(): PackedDecodedLines {
    return { kind: 'decoded', lines: this.out.done(), starts: this.starts, ends: this.ends, fieldNames: [...this.fieldNames] };
  }
}

/** A kafkajs message as the decoder reads it; coordinates are converted only if a DecodeError names them. */
class MessageRecord implements RawRecord {
  constructor(
    private readonly batch: Batch,
    private readonly message: KafkaMessage,
    readonly headers: readonly RecordHeader[],
  ) {}

  get topic(): string {
    return this.batch.topic;
  }

  get partition(): number {
    return this.batch.partition;
  }

  get offset(): bigint {
    return BigInt(this.message.offset);
  }

  get timestampMs(): number {
    return Number(this.message.timestamp);
  }

  get key(): Buffer | null {
    return this.message.key ?? null;
  }

  get value(): Buffer | null {
    return this.message.value;
  }
}
