/**
 * The time-based transforms (year, month, day, hour) on Iceberg's value forms: dates as days
 * since 1970-01-01 (number), timestamps as µs or ns since the epoch (bigint). Division rounds
 * toward −∞, so one µs before the epoch is day −1, hour −1, month −1, year −1.
 */
const MICROS_PER_HOUR = 3_600_000_000n;
const MICROS_PER_DAY = 86_400_000_000n;

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Nanoseconds to microseconds, rounding toward −∞ as the spec asks for `_ns` sources. */
export function nanosToMicros(nanos: bigint): bigint {
  return floorDiv(nanos, 1000n);
}

export function microsToDays(micros: bigint): number {
  return Number(floorDiv(micros, MICROS_PER_DAY));
}

export function microsToHours(micros: bigint): number {
  return Number(floorDiv(micros, MICROS_PER_HOUR));
}

/** Proleptic Gregorian year, month (1–12) and day of a day count (H. Hinnant's civil_from_days). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function daysToYears(days: number): number {
  return civilFromDays(days).year - 1970;
}

export function daysToMonths(days: number): number {
  const { year, month } = civilFromDays(days);
  return (year - 1970) * 12 + month - 1;
}
