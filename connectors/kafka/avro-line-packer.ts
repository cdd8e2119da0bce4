/**
 * Confluent Avro values decoded in the Kafka consumer's worker thread straight into the lines the
 * engine stages (staged-line.ts), with no object per record on either thread: each writer schema
 * (fetched by the decoder the main thread runs, with a registry client of the worker's own) is
 * compiled into a writer of the JSON text the decoder's value stages as (avro-json-writer.ts). A
 * value the writer gives up on, of a schema that is unusable or has a field named like a
 * coordinate column, gets no line: the main thread decodes it and lands it, or dead-letters it
 * with its reason, as it would without the worker. Every value's fetched bytes travel too, for
 * dead letters and the writer schemas' column types.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { RECORD_COORDINATE_FIELDS, type RecordHeader } from '../streaming-source.js';
import { ConfluentAvroDecoder } from './avro-decoder.js';
import { compileAvroJsonWriter, type AvroJsonWriter } from './avro-json-writer.js';
import { CONFLUENT_HEADER_BYTES, confluentSchemaId } from './confluent-wire.js';
import type { LinePacker, LinePackerFactory, PackedDecodedLines } from './packed-batch.js';
import { SchemaRegistryClient, type SchemaRegistryOptions } from './schema-registry-client.js';
import { LineWriter, stagedLineBound, partitionHead, travellingLines, writeValueLine } from './staged-line.js';

interface SchemaLines {
  readonly write: AvroJsonWriter;
  readonly fieldNames: readonly string[];
  /** The JSON text a value's top-level field names add besides its values: `"name":` and a comma each. */
  readonly namesBytes: number;
}

export class AvroLineStager {
  private readonly decoder: ConfluentAvroDecoder;
  /** By registry id; null: values of that schema get no line. */
  private readonly schemas = new Map<number, SchemaLines | null>();
  private readonly sizing: LineSizing = {};

  constructor(registry: SchemaRegistryOptions) {
    this.decoder = new ConfluentAvroDecoder(new SchemaRegistryClient(registry));
  }

  /**
   * The packer of this batch's lines once its writer schemas are fetched; none when the registry
   * fails, so the main thread decodes the batch and reports the failure as it does without the worker.
   */
  async linesOf(batch: Batch): Promise<LinePackerFactory | undefined> {
    const ids = new Set<number>();
    for (const m of batch.messages) {
      const id = confluentSchemaId(m.value);
      if (id !== undefined && !this.schemas.has(id)) ids.add(id);
    }
    if (ids.size > 0) {
      try {
        await this.decoder.prepareIds(ids);
      } catch {
        return undefined;
      }
      for (const id of ids) this.schemas.set(id, this.compile(id));
    }
    return (prepared) => new AvroLinePacker(prepared, this.schemas, this.sizing);
  }

  private compile(id: number): SchemaLines | null {
    const schema = this.decoder.preparedSchema(id);
    const fieldNames = [...(schema?.node.fields?.keys() ?? [])];
    if (schema === undefined || fieldNames.some((name) => (RECORD_COORDINATE_FIELDS as readonly string[]).includes(name))) return null;
    return { write: compileAvroJsonWriter(schema.type, schema.node), fieldNames, namesBytes: fieldNames.reduce((sum, name) => sum + Buffer.byteLength(name) + 4, 0) };
  }
}

/** What the lines of the batches before took: the next batch's buffer is sized by it. */
interface LineSizing {
  bytesPerLine?: number;
}

class AvroLinePacker implements LinePacker {
  private readonly out: LineWriter;
  private readonly head: Buffer;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly fieldNames = new Set<string>();
  private readonly named = new Set<SchemaLines>();
  private lines = 0;

  constructor(
    batch: Batch,
    private readonly schemas: ReadonlyMap<number, SchemaLines | null>,
    private readonly sizing: LineSizing,
  ) {
    this.head = partitionHead(batch.partition);
    // The lines of a topic's batches are about as long as the ones before; the first batch's take
    // about twice the binary values plus the field names. A line that does not fit grows the buffer.
    let total = 0;
    if (sizing.bytesPerLine !== undefined) total = Math.ceil(batch.messages.length * sizing.bytesPerLine * 1.1);
    else {
      for (const m of batch.messages) {
        const id = confluentSchemaId(m.value);
        const namesBytes = id === undefined ? 0 : (schemas.get(id)?.namesBytes ?? 0);
        total += stagedLineBound(this.head, m.key?.length ?? 0, 2 * (m.value?.length ?? 0) + namesBytes);
      }
    }
    this.out = new LineWriter(total);
    this.starts = new Int32Array(batch.messages.length).fill(-1);
    this.ends = new Int32Array(batch.messages.length);
  }

  /** Writes the value's line when it decodes; the value stays in the packed bytes either way. */
  takesValue(index: number, m: KafkaMessage, timestampMs: number, headers: readonly RecordHeader[]): boolean {
    const value = m.value as Buffer;
    const id = confluentSchemaId(value);
    const schema = id === undefined ? undefined : this.schemas.get(id);
    if (schema === undefined || schema === null) return false;
    const start = this.out.size;
    const line = { offset: m.offset, timestampMs, key: m.key ?? null, headers };
    let written: boolean;
    try {
      written = writeValueLine(this.out, this.head, line, (out) => schema.write(value, CONFLUENT_HEADER_BYTES, out));
    } catch {
      // avsc refused the bytes or a logical value is out of range: the decoder gives the reason.
      this.out.rewind(start);
      written = false;
    }
    if (!written) return false;
    if (!this.named.has(schema)) {
      this.named.add(schema);
      for (const name of schema.fieldNames) this.fieldNames.add(name);
    }
    this.starts[index] = start;
    this.ends[index] = this.out.size;
    this.lines++;
    return false;
  }

  done(): PackedDecodedLines {
    // A buffer much larger than its lines is copied to their size before it travels (travellingLines).
    if (this.lines > 0) this.sizing.bytesPerLine = this.out.size / this.lines;
    return { kind: 'decoded', lines: travellingLines(this.out), starts: this.starts, ends: this.ends, fieldNames: [...this.fieldNames] };
  }
}
