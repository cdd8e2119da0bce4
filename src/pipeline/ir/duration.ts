/**
 * Durations of watermark delays and processing-time triggers ("10 seconds", "5 minutes", "250 ms"),
 * kept as written and as microseconds (DuckDB's timestamp unit). Only fixed-length units.
 */
import { InvalidInputError } from '../../errors.js';

export interface Duration {
  /** Normalised text, e.g. "10 minutes": what a lowering writes back out. */
  readonly text: string;
  readonly micros: bigint;
}

const UNITS: readonly (readonly [readonly string[], string, bigint])[] = [
  [['us', 'microsecond', 'microseconds'], 'microseconds', 1n],
  [['ms', 'millisecond', 'milliseconds'], 'milliseconds', 1_000n],
  [['s', 'sec', 'second', 'seconds'], 'seconds', 1_000_000n],
  [['m', 'min', 'minute', 'minutes'], 'minutes', 60_000_000n],
  [['h', 'hour', 'hours'], 'hours', 3_600_000_000n],
  [['d', 'day', 'days'], 'days', 86_400_000_000n],
];

const DURATION = /^\s*(\d+)\s*([a-z]+)\s*$/i;

/** Parses "10 minutes"; undefined when the text is not a duration. */
export function tryParseDuration(text: string): Duration | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const unit = UNITS.find(([names]) => names.includes((match[2] ?? '').toLowerCase()));
  if (unit === undefined) return undefined;
  const amount = BigInt(match[1] ?? '0');
  const name = amount === 1n ? unit[1].slice(0, -1) : unit[1];
  return { text: `${amount} ${name}`, micros: amount * unit[2] };
}

export function parseDuration(text: string, what: string): Duration {
  const duration = tryParseDuration(text);
  if (duration === undefined) {
    throw new InvalidInputError(`${what}: "${text}" is not a duration like "10 seconds", "5 minutes" or "1 hour"`, {
      context: { duration: text },
    });
  }
  return duration;
}

export const DURATION_HINT = 'a duration like "10 seconds", "5 minutes" or "1 hour"';
