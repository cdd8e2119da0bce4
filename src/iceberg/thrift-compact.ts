/**
 * A reader of Thrift's compact protocol (the encoding of a Parquet footer), fetching the bytes
 * lazily through `fetch` (offset, length within the encoded message) so a walk that stops early
 * reads no more than it needs. A struct is walked with a visitor that reads the fields it wants
 * and has the others skipped.
 */

/** How much is fetched at a time. */
const CHUNK = 64 * 1024;

export const T_STOP = 0;
export const T_TRUE = 1;
export const T_FALSE = 2;
export const T_BYTE = 3;
export const T_I16 = 4;
export const T_I32 = 5;
export const T_I64 = 6;
export const T_DOUBLE = 7;
export const T_BINARY = 8;
export const T_LIST = 9;
export const T_SET = 10;
export const T_MAP = 11;
export const T_STRUCT = 12;

/** The message ends before what is being read, or is malformed. */
export class FooterEnd extends Error {}

/** Reads a compact-protocol message lazily. */
export class ThriftCompactReader {
  private bytes = new Uint8Array(0);
  pos = 0;

  constructor(
    private readonly fetch: (offset: number, length: number) => Promise<Uint8Array>,
    private readonly length: number,
  ) {}

  /** Makes `n` more bytes from `pos` available. */
  async need(n: number): Promise<void> {
    if (this.pos + n <= this.bytes.length) return;
    if (this.pos + n > this.length) throw new FooterEnd('footer ends early');
    const want = Math.min(this.length, Math.max(this.pos + n, this.bytes.length + CHUNK));
    const more = await this.fetch(this.bytes.length, want - this.bytes.length);
    const next = new Uint8Array(want);
    next.set(this.bytes);
    next.set(more, this.bytes.length);
    this.bytes = next;
  }

  async byte(): Promise<number> {
    await this.need(1);
    return this.bytes[this.pos++] as number;
  }

  async varint(): Promise<bigint> {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = await this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new FooterEnd('varint longer than 10 bytes');
  }

  async zigzag(): Promise<number> {
    const v = await this.varint();
    return Number((v >> 1n) ^ -(v & 1n));
  }

  async length32(): Promise<number> {
    const n = Number(await this.varint());
    if (n < 0 || n > this.length) throw new FooterEnd('length beyond the footer');
    return n;
  }

  async skipBytes(n: number): Promise<void> {
    await this.need(n);
    this.pos += n;
  }

  async i64(): Promise<bigint> {
    const v = await this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  async binary(): Promise<Uint8Array> {
    const n = await this.length32();
    await this.need(n);
    const out = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  async text(): Promise<string> {
    const n = await this.length32();
    await this.need(n);
    const out = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  async skip(type: number): Promise<void> {
    switch (type) {
      case T_TRUE:
      case T_FALSE:
        return;
      case T_BYTE:
        return this.skipBytes(1);
      case T_I16:
      case T_I32:
      case T_I64:
        await this.varint();
        return;
      case T_DOUBLE:
        return this.skipBytes(8);
      case T_BINARY:
        return this.skipBytes(await this.length32());
      case T_LIST:
      case T_SET: {
        const { size, elementType } = await this.listHeader();
        for (let i = 0; i < size; i++) {
          if (elementType === T_TRUE || elementType === T_FALSE) await this.skipBytes(1);
          else await this.skip(elementType);
        }
        return;
      }
      case T_MAP: {
        const size = await this.length32();
        if (size === 0) return;
        const types = await this.byte();
        for (let i = 0; i < size; i++) {
          await this.skip(types >> 4);
          await this.skip(types & 0x0f);
        }
        return;
      }
      case T_STRUCT:
        return this.struct(async () => false);
      default:
        throw new FooterEnd(`unknown compact type ${type}`);
    }
  }

  async listHeader(): Promise<{ size: number; elementType: number }> {
    const header = await this.byte();
    let size = header >> 4;
    if (size === 15) size = await this.length32();
    return { size, elementType: header & 0x0f };
  }

  /** Walks a struct; `visit` reads the field's value itself and returns true, or returns false to have it skipped. */
  async struct(visit: (fieldId: number, type: number, headerOffset: number) => Promise<boolean>): Promise<void> {
    let last = 0;
    for (;;) {
      const headerOffset = this.pos;
      const header = await this.byte();
      const type = header & 0x0f;
      if (type === T_STOP) return;
      const delta = header >> 4;
      const id = delta === 0 ? await this.zigzag() : last + delta;
      last = id;
      if (!(await visit(id, type, headerOffset))) await this.skip(type);
    }
  }
}

