/** The text forms authors write: column types, durations and partition terms. */
import { DataType, Decimal, Int32, TimestampMicrosecond } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { parseColumnType } from '../../../src/pipeline/ir/column-types.js';
import { tryParseDuration } from '../../../src/pipeline/ir/duration.js';
import { parsePartitionField, transformAccepts } from '../../../src/pipeline/ir/partition-field.js';

describe('column types', () => {
  it('names, decimals and not null', () => {
    expect(parseColumnType('INT')).toEqual({ type: new Int32(), nullable: true });
    expect(parseColumnType('decimal( 12 , 2 ) NOT NULL')).toEqual({ type: new Decimal(2, 12, 128), nullable: false });
    const tz = parseColumnType('timestamptz')?.type;
    expect(tz !== undefined && DataType.isTimestamp(tz) && tz.timezone).toBe('UTC');
    expect(parseColumnType('timestamp')?.type).toEqual(new TimestampMicrosecond());
  });

  it('unknown names and impossible decimals', () => {
    expect(parseColumnType('uuidish')).toBeUndefined();
    expect(parseColumnType('decimal(39, 2)')).toBeUndefined();
    expect(parseColumnType('decimal(4, 5)')).toBeUndefined();
  });
});

describe('durations', () => {
  it('units in short and long form, normalised', () => {
    expect(tryParseDuration('10 minutes')).toEqual({ text: '10 minutes', micros: 600_000_000n });
    expect(tryParseDuration('1h')).toEqual({ text: '1 hour', micros: 3_600_000_000n });
    expect(tryParseDuration('250 ms')).toEqual({ text: '250 milliseconds', micros: 250_000n });
    expect(tryParseDuration('2 days')?.micros).toBe(172_800_000_000n);
  });

  it('no months, no fractions, no bare numbers', () => {
    expect(tryParseDuration('1 month')).toBeUndefined();
    expect(tryParseDuration('1.5 s')).toBeUndefined();
    expect(tryParseDuration('10')).toBeUndefined();
  });
});

describe('partition terms', () => {
  it('every transform, plural forms and spacing', () => {
    expect(parsePartitionField('region')).toEqual({ transform: 'identity', column: 'region', term: 'region' });
    expect(parsePartitionField('days(ts)')).toEqual({ transform: 'day', column: 'ts', term: 'day(ts)' });
    expect(parsePartitionField('HOUR( ts )')).toEqual({ transform: 'hour', column: 'ts', term: 'hour(ts)' });
    expect(parsePartitionField('bucket(16,id)')).toEqual({ transform: 'bucket', column: 'id', parameter: 16, term: 'bucket(16, id)' });
    expect(parsePartitionField('truncate(4, name)')).toEqual({ transform: 'truncate', column: 'name', parameter: 4, term: 'truncate(4, name)' });
    expect(parsePartitionField('void(x)')).toEqual({ transform: 'void', column: 'x', term: 'void(x)' });
  });

  it('refuses unknown transforms and zero widths', () => {
    expect(parsePartitionField('hash(x)')).toBeUndefined();
    expect(parsePartitionField('bucket(0, id)')).toBeUndefined();
    expect(parsePartitionField('day(ts, 2)')).toBeUndefined();
  });

  it('applies transforms only to the types Iceberg defines them for', () => {
    const int = new Int32();
    const ts = new TimestampMicrosecond();
    expect(transformAccepts('day', ts)).toBe(true);
    expect(transformAccepts('day', int)).toBe(false);
    expect(transformAccepts('hour', parseColumnType('date')?.type as DataType)).toBe(false);
    expect(transformAccepts('bucket', int)).toBe(true);
    expect(transformAccepts('truncate', ts)).toBe(false);
  });
});
