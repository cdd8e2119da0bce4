/**
 * Avro logical-type values as the text DuckDB reads them into the matching column type, exactly:
 * timestamps to the microsecond (no Date, which keeps milliseconds), decimals from their unscaled
 * two's-complement bytes (no float), dates, times and fixed-16 UUIDs. Instants carry `+00:00` and
 * a `T` separator, local timestamps a blank and no offset: the forms DuckDB's JSON reader also
 * detects as TIMESTAMP when it types a column from the values alone.
 */

import { civilFromDays, floorDiv } from '../../src/iceberg/transforms/time.js';

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;

/** `2024-01-02T03:04:05.123456+00:00` for an instant (UTC-adjusted), `2024-01-02 03:04:05.123456` for a local timestamp. */
export function timestampText(micros: bigint, utcAdjusted: boolean): string {
  const days = floorDiv(micros, MICROS_PER_DAY);
  const ofDay = micros - days * MICROS_PER_DAY;
  const date = dateText(Number(days));
  return utcAdjusted ? `${date}T${timeText(ofDay)}+00:00` : `${date} ${timeText(ofDay)}`;
}

/** `HH:MM:SS.ffffff` for microseconds after midnight. */
export function timeText(micros: bigint): string {
  const seconds = micros / MICROS_PER_SECOND;
  const fraction = micros % MICROS_PER_SECOND;
  const h = seconds / 3600n;
  const m = (seconds / 60n) % 60n;
  const s = seconds % 60n;
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(fraction, 6)}`;
}

/** `YYYY-MM-DD` (proleptic Gregorian) for days since 1970-01-01. */
export function dateText(daysSinceEpoch: number): string {
  const { year, month, day } = civilFromDays(daysSinceEpoch);
  const yearText = year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0');
  return `${yearText}-${pad(BigInt(month), 2)}-${pad(BigInt(day), 2)}`;
}

/** The unscaled value of an Avro decimal: big-endian two's complement bytes. */
export function unscaledOf(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  const negative = ((bytes[0] as number) & 0x80) !== 0;
  return negative ? value - (1n << BigInt(bytes.length * 8)) : value;
}

/** `-123.45` for unscaled -12345 at scale 2; exact for any size. */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  if (scale === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(scale + 1, '0');
  const text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** The canonical lowercase text of a 16-byte UUID. */
export function uuidText(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function pad(value: bigint, width: number): string {
  return value.toString().padStart(width, '0');
}
