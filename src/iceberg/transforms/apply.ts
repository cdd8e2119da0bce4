/**
 * One partition value from one source value, in pure TypeScript (manifests, tests, small
 * batches). Values use the single-value JS forms of bounds.ts: int/date → number;
 * long/time/timestamp* → bigint (µs, or ns for `_ns`); decimal → unscaled bigint; string;
 * uuid → lowercase 8-4-4-4-12 string; fixed/binary → Uint8Array. null in, null out.
 */
import { IcebergFormatError } from '../../errors.js';
import { encodeSingleValue } from '../bounds.js';
import type { IcebergType, PrimitiveType } from '../types.js';
import { bucketHash, bucketOf } from './bucket.js';
import { transformResultType } from './result-type.js';
import type { TransformSite } from './result-type.js';
import { daysToMonths, daysToYears, microsToDays, microsToHours, nanosToMicros } from './time.js';
import type { Transform } from './transform.js';
import { truncateValue } from './truncate.js';

export interface BoundTransform {
  readonly transform: Transform;
  readonly sourceType: PrimitiveType;
  readonly resultType: PrimitiveType;
  /** The partition value of one source value (null for null). */
  readonly apply: (value: unknown) => unknown;
}

function expectDays(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new IcebergFormatError(`expected a date as an integer day count, got ${String(value)}`, { context: { type: 'date' } });
  }
  return value;
}

/** Microseconds since the epoch of a timestamp value; undefined for a date. */
function epochMicros(type: PrimitiveType, value: unknown): bigint | undefined {
  if (type.kind === 'date') return undefined;
  if (typeof value !== 'bigint') {
    throw new IcebergFormatError(`expected a ${type.kind} as a bigint, got ${String(value)}`, { context: { type: type.kind } });
  }
  return type.kind === 'timestamp_ns' || type.kind === 'timestamptz_ns' ? nanosToMicros(value) : value;
}

function daysOf(type: PrimitiveType, value: unknown): number {
  const micros = epochMicros(type, value);
  return micros === undefined ? expectDays(value) : microsToDays(micros);
}

/** Checks the source type once and returns the transform as a function of one value. */
export function bindTransform(transform: Transform, sourceType: IcebergType, site: TransformSite): BoundTransform {
  const resultType = transformResultType(transform, sourceType, site);
  const source = sourceType as PrimitiveType;
  const nullable = (f: (value: unknown) => unknown) => (value: unknown) => (value === null || value === undefined ? null : f(value));
  let apply: (value: unknown) => unknown;
  switch (transform.kind) {
    case 'identity':
      apply = nullable((value) => {
        encodeSingleValue(source, value); // refuses a value that is not of the source type
        return value;
      });
      break;
    case 'void':
      apply = () => null;
      break;
    case 'bucket': {
      const n = transform.numBuckets;
      apply = nullable((value) => bucketOf(bucketHash(source, value), n));
      break;
    }
    case 'truncate': {
      const width = transform.width;
      apply = nullable((value) => truncateValue(source, width, value));
      break;
    }
    case 'year':
      apply = nullable((value) => daysToYears(daysOf(source, value)));
      break;
    case 'month':
      apply = nullable((value) => daysToMonths(daysOf(source, value)));
      break;
    case 'day':
      apply = nullable((value) => daysOf(source, value));
      break;
    case 'hour':
      apply = nullable((value) => microsToHours(epochMicros(source, value)!));
      break;
    case 'unknown':
      // transformResultType has already refused it; kept for an exhaustive switch.
      throw new IcebergFormatError(`unknown transform '${transform.text}'`, { context: { partitionField: site.partitionField } });
  }
  return { transform, sourceType: source, resultType, apply };
}

export function applyTransform(transform: Transform, sourceType: IcebergType, value: unknown): unknown {
  return bindTransform(transform, sourceType, { partitionField: transform.kind }).apply(value);
}
