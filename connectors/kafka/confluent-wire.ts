/**
 * The Confluent wire format of a serialized value: magic byte 0, the writer schema's registry id
 * as a 4-byte big-endian integer, then the encoded payload.
 */
export const CONFLUENT_MAGIC_BYTE = 0;
export const CONFLUENT_HEADER_BYTES = 5;

export type WireParse = { readonly schemaId: number; readonly payload: Buffer } | { readonly problem: string };

/** The header read by confluentSchemaId, with the payload; a value without a header gets the reason. */
export function parseConfluentWire(value: Buffer): WireParse {
  const schemaId = confluentSchemaId(value);
  if (schemaId !== undefined) return { schemaId, payload: value.subarray(CONFLUENT_HEADER_BYTES) };
  if (value.length < CONFLUENT_HEADER_BYTES) return { problem: `${value.length} bytes, shorter than the 5-byte Confluent header` };
  return { problem: `magic byte is ${value[0]}, expected ${CONFLUENT_MAGIC_BYTE} (not Confluent wire format)` };
}

/** The registry id in a value's Confluent header, read in place; undefined for a value without one. */
export function confluentSchemaId(value: Uint8Array | null | undefined): number | undefined {
  if (value === null || value === undefined || value.length < CONFLUENT_HEADER_BYTES || value[0] !== CONFLUENT_MAGIC_BYTE) return undefined;
  return (((value[1] as number) << 24) | ((value[2] as number) << 16) | ((value[3] as number) << 8) | (value[4] as number)) >>> 0;
}

export function encodeConfluentWire(schemaId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(CONFLUENT_HEADER_BYTES);
  header.writeUInt8(CONFLUENT_MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, payload]);
}
