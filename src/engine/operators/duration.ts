/**
 * Durations for watermarks and windows ("10 seconds", "5 minutes", "1 hour", "250 ms") as
 * microseconds, DuckDB's timestamp unit. Only fixed-length units: a month has no fixed length,
 * so window boundaries in months could not be computed by arithmetic on epoch microseconds.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';

const UNIT_MICROS: Readonly<Record<string, bigint>> = {
  us: 1n, microsecond: 1n, microseconds: 1n,
  ms: 1000n, millisecond: 1000n, milliseconds: 1000n,
  s: 1_000_000n, second: 1_000_000n, seconds: 1_000_000n,
  m: 60_000_000n, minute: 60_000_000n, minutes: 60_000_000n,
  h: 3_600_000_000n, hour: 3_600_000_000n, hours: 3_600_000_000n,
  d: 86_400_000_000n, day: 86_400_000_000n, days: 86_400_000_000n,
};

const DURATION = z.string().regex(/^\s*\d+\s*[a-z]+\s*$/i);

export function durationMicros(text: string, what: string, allowZero = false): bigint {
  const parsed = DURATION.safeParse(text);
  const match = parsed.success ? /^\s*(\d+)\s*([a-z]+)\s*$/i.exec(text) : null;
  const unit = match ? UNIT_MICROS[match[2]!.toLowerCase()] : undefined;
  if (match === null || unit === undefined) {
    throw new InvalidInputError(`${what}: "${text}" is not a duration like "10 seconds", "5 minutes" or "1 hour"`, { context: { duration: text } });
  }
  const micros = BigInt(match[1]!) * unit;
  if (micros === 0n && !allowZero) throw new InvalidInputError(`${what}: the duration must be positive`, { context: { duration: text } });
  return micros;
}
