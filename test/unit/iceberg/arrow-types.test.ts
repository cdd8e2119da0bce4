import {
  Binary, Bool, DataType, DateDay, DateMillisecond, Decimal, Dictionary, Field, FixedSizeBinary, Float16, Float32, Float64,
  Int16, Int32, Int64, Int8, IntervalDayTime, LargeBinary, LargeUtf8, List, Map_, Null, Schema, Struct, TimeMicrosecond,
  TimeMillisecond, TimeNanosecond, TimeSecond, TimestampMicrosecond, TimestampMillisecond, TimestampNanosecond,
  TimestampSecond, Uint16, Uint32, Uint64, Uint8, Utf8, tableFromArrays, tableToIPC, tableFromIPC,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { IcebergFormatError, InvalidInputError } from '../../../src/errors.js';
import { arrowSchemaToFields, arrowTypeToIceberg, icebergToArrowType } from '../../../src/iceberg/arrow-types.js';
import type { UnassignedType } from '../../../src/iceberg/schema.js';

const k = (kind: string): UnassignedType => ({ kind }) as UnassignedType;

describe('arrowTypeToIceberg', () => {
  const cases: Array<[DataType, UnassignedType]> = [
    [new Bool(), k('boolean')],
    [new Int8(), k('int')], [new Int16(), k('int')], [new Int32(), k('int')], [new Int64(), k('long')],
    [new Uint8(), k('int')], [new Uint16(), k('int')], [new Uint32(), k('long')],
    [new Float16(), k('float')], [new Float32(), k('float')], [new Float64(), k('double')],
    [new Decimal(2, 10, 128), { kind: 'decimal', precision: 10, scale: 2 }],
    [new DateDay(), k('date')], [new DateMillisecond(), k('date')],
    [new TimeSecond(), k('time')], [new TimeMillisecond(), k('time')], [new TimeMicrosecond(), k('time')], [new TimeNanosecond(), k('time')],
    [new TimestampSecond(), k('timestamp')], [new TimestampMillisecond(), k('timestamp')],
    [new TimestampMicrosecond(), k('timestamp')], [new TimestampMicrosecond('UTC'), k('timestamptz')],
    [new TimestampMillisecond('Europe/Paris'), k('timestamptz')],
    [new TimestampNanosecond(), k('timestamp_ns')], [new TimestampNanosecond('UTC'), k('timestamptz_ns')],
    [new Utf8(), k('string')], [new LargeUtf8(), k('string')], [new Binary(), k('binary')], [new LargeBinary(), k('binary')],
    [new FixedSizeBinary(16), { kind: 'fixed', length: 16 }],
    [new Dictionary(new Utf8(), new Int32()), k('string')],
    [new List(new Field('item', new Int32(), false)), { kind: 'list', elementRequired: true, element: k('int') }],
    [
      new Struct([new Field('a', new Utf8(), true), new Field('b', new Float64(), false)]),
      { kind: 'struct', fields: [{ name: 'a', required: false, type: k('string') }, { name: 'b', required: true, type: k('double') }] },
    ],
    [
      new Map_(new Field('entries', new Struct<{ key: Utf8; value: Int64 }>([new Field('key', new Utf8(), false), new Field('value', new Int64(), true)] as Field[]), false)),
      { kind: 'map', key: k('string'), valueRequired: false, value: k('long') },
    ],
  ];
  it.each(cases.map(([a, i]) => [String(a), a, i] as const))('%s', (_name, arrow, iceberg) => {
    expect(arrowTypeToIceberg(arrow, 'c')).toEqual(iceberg);
  });

  it('rejects types without an Iceberg equivalent, naming the nested column', () => {
    expect(() => arrowTypeToIceberg(new Uint64(), 'big')).toThrow(InvalidInputError);
    expect(() => arrowTypeToIceberg(new Uint64(), 'big')).toThrow(/column "big"/);
    expect(() => arrowTypeToIceberg(new Null(), 'n')).toThrow(InvalidInputError);
    expect(() => arrowTypeToIceberg(new IntervalDayTime(), 'iv')).toThrow(InvalidInputError);
    const nested = new Struct([new Field('inner', new List(new Field('item', new Uint64())))]);
    expect(() => arrowTypeToIceberg(nested, 'outer')).toThrow(/column "outer\.inner\.element"/);
  });

  it('reads the schema of a real Arrow IPC table, keeping nullability', () => {
    const table = tableFromIPC(tableToIPC(tableFromArrays({ id: Int32Array.of(1, 2), name: ['a', 'b'], x: Float64Array.of(1, 2) })));
    expect(arrowSchemaToFields(table.schema)).toEqual([
      // apache-arrow marks typed-array columns non-nullable and string columns nullable.
      { name: 'id', required: true, type: k('int') },
      { name: 'name', required: false, type: k('string') },
      { name: 'x', required: true, type: k('double') },
    ]);
    const schema = new Schema([new Field('req', new Int64(), false)]);
    expect(arrowSchemaToFields(schema)).toEqual([{ name: 'req', required: true, type: k('long') }]);
  });
});

describe('icebergToArrowType', () => {
  it('round-trips every Iceberg type except uuid (which comes back as fixed[16])', () => {
    const types: UnassignedType[] = [
      k('boolean'), k('int'), k('long'), k('float'), k('double'), { kind: 'decimal', precision: 38, scale: 4 }, k('date'),
      k('time'), k('timestamp'), k('timestamptz'), k('timestamp_ns'), k('timestamptz_ns'), k('string'), k('binary'),
      { kind: 'fixed', length: 3 },
      { kind: 'struct', fields: [{ name: 's', required: true, type: { kind: 'list', elementRequired: false, element: k('date') } }] },
      { kind: 'map', key: k('string'), valueRequired: true, value: k('long') },
    ];
    for (const t of types) expect(arrowTypeToIceberg(icebergToArrowType(t), 'c')).toEqual(t);
    expect(arrowTypeToIceberg(icebergToArrowType(k('uuid')), 'c')).toEqual({ kind: 'fixed', length: 16 });
    expect(() => icebergToArrowType(k('unknown'))).toThrow(IcebergFormatError);
  });
});
