/**
 * Which source types each transform accepts and the type of its result (spec §5 table).
 */
import { IcebergFormatError } from '../../errors.js';
import { typeText } from '../schema.js';
import { isPrimitive, primitive } from '../types.js';
import type { IcebergType, PrimitiveType } from '../types.js';
import { requireKnown, transformToString } from './transform.js';
import type { KnownTransform, Transform } from './transform.js';

type SourceKind = PrimitiveType['kind'];

const TIMESTAMPS: readonly SourceKind[] = ['timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns'];
const DATES_AND_TIMESTAMPS: readonly SourceKind[] = ['date', ...TIMESTAMPS];

const ACCEPTED: Readonly<Record<KnownTransform['kind'], readonly SourceKind[]>> = {
  identity: [
    'boolean', 'int', 'long', 'float', 'double', 'decimal', 'date', 'time', ...TIMESTAMPS, 'string', 'uuid', 'fixed', 'binary',
  ],
  bucket: ['int', 'long', 'decimal', 'date', 'time', ...TIMESTAMPS, 'string', 'uuid', 'fixed', 'binary'],
  truncate: ['int', 'long', 'decimal', 'string', 'binary'],
  year: DATES_AND_TIMESTAMPS,
  month: DATES_AND_TIMESTAMPS,
  day: DATES_AND_TIMESTAMPS,
  hour: TIMESTAMPS,
  void: [],
};

/** The source type kinds a transform accepts; `void` accepts every type. */
export function acceptedSourceKinds(transform: KnownTransform): readonly SourceKind[] {
  return ACCEPTED[transform.kind];
}

export function canTransform(transform: Transform, source: IcebergType): boolean {
  if (transform.kind === 'unknown') return false;
  if (transform.kind === 'void') return true;
  return ACCEPTED[transform.kind].includes(source.kind as SourceKind);
}

/** Names the partition field and source column in errors. */
export interface TransformSite {
  readonly partitionField: string;
  readonly sourceColumn?: string;
}

/**
 * The result type of `transform` applied to `source`, or a typed error naming the partition
 * field, the transform and what it accepts.
 */
export function transformResultType(transform: Transform, source: IcebergType, site: TransformSite): PrimitiveType {
  const known = requireKnown(transform, site.partitionField);
  const column = site.sourceColumn === undefined ? 'its source column' : `source column ${site.sourceColumn}`;
  if (!isPrimitive(source)) {
    throw new IcebergFormatError(`Partition field ${site.partitionField}: ${column} is a ${source.kind}; partition sources must be primitive`, {
      context: { partitionField: site.partitionField, transform: transformToString(known), sourceType: source.kind },
    });
  }
  if (!canTransform(known, source)) {
    const name = transformToString(known);
    throw new IcebergFormatError(
      `Partition field ${site.partitionField}: transform ${name} cannot be applied to ${column} of type ${typeText(source)}` +
        ` (it accepts ${ACCEPTED[known.kind].join(', ')})`,
      { context: { partitionField: site.partitionField, transform: name, sourceType: typeText(source) } },
    );
  }
  switch (known.kind) {
    case 'identity':
    case 'truncate':
    case 'void':
      return source;
    case 'bucket':
    case 'year':
    case 'month':
    case 'hour':
      return primitive('int');
    case 'day':
      return primitive('date');
  }
}
