/**
 * Partition transforms (spec §5) as a closed union, and their string form in partition specs
 * (`identity`, `bucket[16]`, `truncate[4]`, `year`, `month`, `day`, `hour`, `void`). A string no
 * version of the spec defines parses to `unknown`: such a spec can be read and kept, but no file
 * may be written under it.
 */
import { IcebergFormatError } from '../../errors.js';

export type Transform =
  | { readonly kind: 'identity' }
  | { readonly kind: 'bucket'; readonly numBuckets: number }
  | { readonly kind: 'truncate'; readonly width: number }
  | { readonly kind: 'year' }
  | { readonly kind: 'month' }
  | { readonly kind: 'day' }
  | { readonly kind: 'hour' }
  | { readonly kind: 'void' }
  | { readonly kind: 'unknown'; readonly text: string };

export type KnownTransform = Exclude<Transform, { kind: 'unknown' }>;

export const identity: Transform = { kind: 'identity' };
export const year: Transform = { kind: 'year' };
export const month: Transform = { kind: 'month' };
export const day: Transform = { kind: 'day' };
export const hour: Transform = { kind: 'hour' };
export const voidTransform: Transform = { kind: 'void' };

const INT32_MAX = 2 ** 31 - 1;

function positiveParameter(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > INT32_MAX) {
    throw new IcebergFormatError(`The ${name} parameter must be an integer in 1..${INT32_MAX}, got ${value}`, {
      context: { transform: name },
    });
  }
  return value;
}

export function bucket(numBuckets: number): Transform {
  return { kind: 'bucket', numBuckets: positiveParameter('bucket', numBuckets) };
}

export function truncate(width: number): Transform {
  return { kind: 'truncate', width: positiveParameter('truncate', width) };
}

// Java's Transforms.fromString also accepts these plural spellings written by old versions.
const NAMED: Readonly<Record<string, Transform>> = {
  identity,
  year,
  years: year,
  month,
  months: month,
  day,
  days: day,
  date: day,
  hour,
  hours: hour,
  date_hour: hour,
  void: voidTransform,
  alwaysnull: voidTransform,
};

const WITH_PARAMETER = /^(bucket|truncate)\[\s*(\d+)\s*\]$/;

export function parseTransform(text: string): Transform {
  const normalized = text.trim().toLowerCase();
  const named = NAMED[normalized];
  if (named !== undefined) return named;
  const match = WITH_PARAMETER.exec(normalized);
  if (match !== null) {
    const parameter = Number(match[2]);
    return match[1] === 'bucket' ? bucket(parameter) : truncate(parameter);
  }
  return { kind: 'unknown', text };
}

export function transformToString(transform: Transform): string {
  switch (transform.kind) {
    case 'bucket':
      return `bucket[${transform.numBuckets}]`;
    case 'truncate':
      return `truncate[${transform.width}]`;
    case 'unknown':
      return transform.text;
    default:
      return transform.kind;
  }
}

/** The transform, refusing an unknown one: values cannot be computed for it. */
export function requireKnown(transform: Transform, field: string): KnownTransform {
  if (transform.kind === 'unknown') {
    throw new IcebergFormatError(`Partition field ${field}: unknown transform '${transform.text}'`, {
      context: { partitionField: field, transform: transform.text },
    });
  }
  return transform;
}
