/**
 * Puffin files (ICEBERG.md §6.4):
 * `PFA1 | blobs | PFA1 | footer JSON | int32 LE payload length | 4 flag bytes | PFA1`.
 * The footer is written uncompressed, as Iceberg Java does by default, with its keys in Java's
 * order, so a file equals Java's for the same blobs and properties.
 */
import { IcebergFormatError } from '../../errors.js';
import { parseJson } from '../json.js';
import { THUND_VERSION } from '../../version.js';
import { encodeDeletionVector } from './deletion-vector.js';

export const DELETION_VECTOR_V1 = 'deletion-vector-v1';
/** The `_pos` metadata column: the field a deletion vector is computed for. */
const ROW_POSITION_FIELD_ID = 2147483645;

const MAGIC = [0x50, 0x46, 0x41, 0x31] as const; // "PFA1"
/** Footer magic, payload length, flags, magic. */
const FOOTER_OVERHEAD = 16;
const FOOTER_COMPRESSED_FLAG = 0x01;

export interface PuffinBlobInput {
  readonly type: string;
  readonly fields: readonly number[];
  readonly snapshotId: bigint;
  readonly sequenceNumber: bigint;
  readonly data: Uint8Array;
  readonly properties?: Record<string, string>;
  /** The codec `data` is already compressed with; omitted means uncompressed. */
  readonly compressionCodec?: string;
}

export interface PuffinBlobMetadata {
  readonly type: string;
  readonly fields: readonly number[];
  readonly snapshotId: bigint;
  readonly sequenceNumber: bigint;
  readonly offset: bigint;
  readonly length: bigint;
  readonly compressionCodec?: string;
  readonly properties?: Record<string, string>;
}

export interface PuffinFooter {
  readonly blobs: PuffinBlobMetadata[];
  readonly properties: Record<string, string>;
  /** Footer bytes from its opening magic to the end of the file (`file-footer-size-in-bytes`). */
  readonly footerSize: number;
}

export interface PuffinFile {
  readonly bytes: Uint8Array;
  readonly blobs: PuffinBlobMetadata[];
  readonly footerSize: number;
}

/**
 * A Puffin file of `blobs`, in order. File properties get `created-by: thund <version>` unless
 * `fileProperties` names another.
 */
export function writePuffinFile(blobs: readonly PuffinBlobInput[], fileProperties: Record<string, string> = {}): PuffinFile {
  let offset = MAGIC.length;
  const written: PuffinBlobMetadata[] = blobs.map((blob) => {
    const metadata: PuffinBlobMetadata = {
      type: blob.type,
      fields: [...blob.fields],
      snapshotId: blob.snapshotId,
      sequenceNumber: blob.sequenceNumber,
      offset: BigInt(offset),
      length: BigInt(blob.data.length),
      ...(blob.compressionCodec === undefined ? {} : { compressionCodec: blob.compressionCodec }),
      ...(blob.properties === undefined ? {} : { properties: { ...blob.properties } }),
    };
    offset += blob.data.length;
    return metadata;
  });
  const payload = new TextEncoder().encode(footerJson(written, { 'created-by': `thund ${THUND_VERSION}`, ...fileProperties }));
  const bytes = new Uint8Array(offset + FOOTER_OVERHEAD + payload.length);
  bytes.set(MAGIC, 0);
  blobs.forEach((blob, i) => bytes.set(blob.data, Number(written[i]!.offset)));
  bytes.set(MAGIC, offset);
  bytes.set(payload, offset + 4);
  const view = new DataView(bytes.buffer);
  view.setInt32(offset + 4 + payload.length, payload.length, true);
  // The four flag bytes stay zero: the footer is not compressed.
  bytes.set(MAGIC, bytes.length - 4);
  return { bytes, blobs: written, footerSize: payload.length + FOOTER_OVERHEAD };
}

/** Compact JSON with keys in Java's FileMetadataParser order; empty property maps are left out. */
function footerJson(blobs: readonly PuffinBlobMetadata[], properties: Record<string, string>): string {
  const blobJson = blobs.map((blob) => {
    const parts = [
      `"type":${JSON.stringify(blob.type)}`,
      `"fields":[${blob.fields.map((field) => checkedField(field)).join(',')}]`,
      `"snapshot-id":${blob.snapshotId}`,
      `"sequence-number":${blob.sequenceNumber}`,
      `"offset":${blob.offset}`,
      `"length":${blob.length}`,
    ];
    if (blob.compressionCodec !== undefined) parts.push(`"compression-codec":${JSON.stringify(blob.compressionCodec)}`);
    if (blob.properties !== undefined && Object.keys(blob.properties).length > 0) parts.push(`"properties":${JSON.stringify(blob.properties)}`);
    return `{${parts.join(',')}}`;
  });
  const file = Object.keys(properties).length > 0 ? `,"properties":${JSON.stringify(properties)}` : '';
  return `{"blobs":[${blobJson.join(',')}]${file}}`;
}

function checkedField(field: number): number {
  if (!Number.isInteger(field) || field < -(2 ** 31) || field >= 2 ** 31) {
    throw new IcebergFormatError(`Puffin blob field id ${field} is not a 32-bit integer`, { context: { field } });
  }
  return field;
}

/** The `deletion-vector-v1` blob of a data file's deleted positions (ascending, unique). */
export function deletionVectorBlob(referencedDataFile: string, sortedPositions: BigInt64Array): PuffinBlobInput {
  return {
    type: DELETION_VECTOR_V1,
    fields: [ROW_POSITION_FIELD_ID],
    // Both are inherited from the manifest entry of the DV.
    snapshotId: -1n,
    sequenceNumber: -1n,
    data: encodeDeletionVector(sortedPositions),
    properties: { 'referenced-data-file': referencedDataFile, cardinality: String(sortedPositions.length) },
  };
}

/** The footer of a whole Puffin file; `where` names the file in errors. */
export function readPuffinFooter(bytes: Uint8Array, where: string): PuffinFooter {
  const fail = (message: string, context: Record<string, string | number> = {}): never => {
    throw new IcebergFormatError(`Invalid Puffin file ${where}: ${message}`, { context: { file: where, fileSize: bytes.length, ...context } });
  };
  const magicAt = (at: number): boolean => MAGIC.every((byte, i) => bytes[at + i] === byte);
  if (bytes.length < MAGIC.length + FOOTER_OVERHEAD) fail(`${bytes.length} bytes is shorter than the smallest Puffin file (20 bytes)`);
  if (!magicAt(0)) fail('it does not start with the magic PFA1');
  if (!magicAt(bytes.length - 4)) fail('it does not end with the magic PFA1');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const payloadLength = view.getInt32(bytes.length - 12, true);
  const footerStart = bytes.length - FOOTER_OVERHEAD - payloadLength;
  if (payloadLength < 0 || footerStart < MAGIC.length) {
    fail(`footer payload length ${payloadLength} does not fit in the file`, { payloadLength });
  }
  if (!magicAt(footerStart)) fail(`no PFA1 magic at byte ${footerStart} where the footer should start`, { offset: footerStart });
  if ((bytes[bytes.length - 8]! & FOOTER_COMPRESSED_FLAG) !== 0) {
    fail('its footer payload is LZ4-compressed, which this reader does not decode', { flags: bytes[bytes.length - 8]! });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(footerStart + 4, footerStart + 4 + payloadLength));
  } catch (error) {
    return fail(`footer payload is not UTF-8 (${error instanceof Error ? error.message : String(error)})`);
  }
  const json = parseJson(text, `Puffin footer of ${where}`);
  if (!isObject(json) || !Array.isArray(json['blobs'])) return fail('footer JSON is not an object with a "blobs" list');
  const blobs = json['blobs'].map((blob: unknown, i: number) => parseBlob(blob, i, footerStart, fail));
  return { blobs, properties: stringMap(json['properties'], 'file properties', fail) ?? {}, footerSize: payloadLength + FOOTER_OVERHEAD };
}

type Fail = (message: string, context?: Record<string, string | number>) => never;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBlob(blob: unknown, index: number, footerStart: number, fail: Fail): PuffinBlobMetadata {
  const at = `blob ${index}`;
  if (!isObject(blob)) return fail(`${at} in the footer is not a JSON object`, { blob: index });
  const long = (key: string): bigint => {
    const value = blob[key];
    if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return BigInt(value);
    return fail(`${at} has no integer "${key}"`, { blob: index });
  };
  const type = blob['type'];
  if (typeof type !== 'string') return fail(`${at} has no string "type"`, { blob: index });
  const fields = blob['fields'];
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'number' && Number.isInteger(field))) {
    return fail(`${at} (${type}) has no integer list "fields"`, { blob: index });
  }
  const offset = long('offset');
  const length = long('length');
  if (offset < BigInt(MAGIC.length) || length < 0n || offset + length > BigInt(footerStart)) {
    fail(`${at} (${type}) at offset ${offset} with length ${length} lies outside the blob area [4, ${footerStart})`, { blob: index });
  }
  const codec = blob['compression-codec'];
  if (codec !== undefined && codec !== null && typeof codec !== 'string') fail(`${at} (${type}) has a non-string "compression-codec"`, { blob: index });
  const properties = stringMap(blob['properties'], `${at} (${type}) properties`, fail);
  return {
    type,
    fields: fields as number[],
    snapshotId: long('snapshot-id'),
    sequenceNumber: long('sequence-number'),
    offset,
    length,
    ...(typeof codec === 'string' ? { compressionCodec: codec } : {}),
    ...(properties === undefined ? {} : { properties }),
  };
}

function stringMap(value: unknown, what: string, fail: Fail): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) return fail(`${what} are not a JSON object of strings`);
  return { ...(value as Record<string, string>) };
}
