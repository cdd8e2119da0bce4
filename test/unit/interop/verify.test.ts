import { describe, expect, it } from 'vitest';
import { canonicalizer, verifyTableRows, verifyTableSchema, type ColumnType, type Row } from '../../interop/verify.js';

const COLUMNS: ColumnType[] = [
  { name: 'order_id', type: 'long' },
  { name: 'customer_name', type: 'string' },
  { name: 'amount', type: 'decimal(12, 2)' },
  { name: 'ordered_at', type: 'timestamptz' },
  { name: 'ship_date', type: 'date' },
  { name: 'is_gift', type: 'boolean' },
];

/** Expected rows in the forms DuckDB gives (bigint ids, decimal text, µs epochs as bigint). */
const EXPECTED: Row[] = [
  { order_id: 1n, customer_name: 'Ann', amount: '12.50', ordered_at: 1_700_000_000_000_000n, ship_date: '2023-11-15', is_gift: false },
  { order_id: 2n, customer_name: 'Bo', amount: '0.05', ordered_at: 1_700_000_123_456_789n, ship_date: '2023-11-16', is_gift: true },
  { order_id: 3n, customer_name: 'Cy', amount: '-3.00', ordered_at: null, ship_date: null, is_gift: null },
];

/** The same rows as pyiceberg prints them (JSON numbers, ISO text with +00:00), shuffled. */
const PYICEBERG: Row[] = [
  { order_id: 3, customer_name: 'Cy', amount: '-3', ordered_at: null, ship_date: null, is_gift: null },
  { order_id: 1, customer_name: 'Ann', amount: '12.5', ordered_at: '2023-11-14T22:13:20+00:00', ship_date: '2023-11-15', is_gift: false },
  { order_id: 2, customer_name: 'Bo', amount: '5E-2', ordered_at: '2023-11-14T22:15:23.456789+00:00', ship_date: '2023-11-16', is_gift: true },
];

function mismatch(actual: Row[], expected: Row[] = EXPECTED, columns: ColumnType[] = COLUMNS): string {
  try {
    verifyTableRows({ expected, actual, columns, reader: 'test-reader', table: 'lake.orders' });
  } catch (error) {
    expect((error as { code?: string }).code).toBe('INTEROP_MISMATCH');
    return (error as Error).message;
  }
  throw new Error('verifyTableRows accepted rows that differ');
}

const withRow = (rows: Row[], index: number, patch: Record<string, unknown>): Row[] => rows.map((row, i) => (i === index ? { ...row, ...patch } : row));

describe('verifyTableRows', () => {
  it('accepts the same rows in another order and in another reader’s value forms', () => {
    expect(verifyTableRows({ expected: EXPECTED, actual: PYICEBERG, columns: COLUMNS, reader: 'pyiceberg' })).toEqual({
      reader: 'pyiceberg',
      rows: 3,
      distinctRows: 3,
    });
    // A timestamp with another offset is the same instant.
    verifyTableRows({ expected: EXPECTED, actual: withRow(PYICEBERG, 1, { ordered_at: '2023-11-15T00:13:20+02:00' }), columns: COLUMNS, reader: 'r' });
  });

  it('catches one changed value and names the column it differs in', () => {
    const message = mismatch(withRow(PYICEBERG, 1, { customer_name: 'Anne' }));
    expect(message).toContain('test-reader read lake.orders differently');
    expect(message).toContain('expected 3 rows, test-reader read 3; 2 match, 1 missing, 1 unexpected');
    expect(message).toContain('customer_name="Ann"');
    expect(message).toContain('customer_name="Anne"');
    expect(message).toContain('differs in: customer_name');
  });

  it('catches a missing row', () => {
    const message = mismatch(PYICEBERG.slice(1));
    expect(message).toContain('expected 3 rows, test-reader read 2; 2 match, 1 missing, 0 unexpected');
    expect(message).toMatch(/missing rows .*\n\s+order_id=3, customer_name="Cy", amount=-3\.00, ordered_at=null/);
  });

  it('catches a duplicated row (multiset, not set, comparison)', () => {
    const message = mismatch([...PYICEBERG, PYICEBERG[0]!]);
    expect(message).toContain('expected 3 rows, test-reader read 4; 3 match, 0 missing, 1 unexpected');
    expect(message).toMatch(/unexpected rows .*\n\s+order_id=3, .*\(expected ×1, read ×2\)/);
    // And the other way: a row expected twice but read once.
    const twice = [...EXPECTED, EXPECTED[1]!];
    expect(mismatch(PYICEBERG, twice)).toContain('1 missing, 0 unexpected');
  });

  it('reports a row expected twice and missing twice with its multiplicity', () => {
    const twice = [...EXPECTED, EXPECTED[0]!];
    expect(mismatch(PYICEBERG.slice(0, 1).concat(PYICEBERG.slice(2)), twice)).toMatch(/order_id=1, .*×2/);
  });

  it('catches decimal scale drift: an unscaled value, or one rounded to another scale', () => {
    expect(mismatch(withRow(PYICEBERG, 1, { amount: '1250' }))).toContain('amount=1250.00');
    expect(mismatch(withRow(PYICEBERG, 1, { amount: '12.501' }))).toContain('amount=!not decimal(12,2): "12.501"');
    const wide: ColumnType[] = COLUMNS.map((c) => (c.name === 'amount' ? { name: 'amount', type: 'decimal(3, 2)' } : c));
    expect(mismatch(PYICEBERG, EXPECTED, wide)).toContain('!not decimal(3,2): "12.5"');
  });

  it('catches a timestamp shifted by a zone, and a zoned timestamp read without its zone', () => {
    // Local wall time (UTC+01:00) printed as if it were UTC.
    const shifted = mismatch(withRow(PYICEBERG, 1, { ordered_at: '2023-11-14T23:13:20+00:00' }));
    expect(shifted).toContain('ordered_at=2023-11-14T22:13:20.000000Z');
    expect(shifted).toContain('ordered_at=2023-11-14T23:13:20.000000Z');
    expect(shifted).toContain('differs in: ordered_at');
    expect(mismatch(withRow(PYICEBERG, 1, { ordered_at: '2023-11-14T22:13:20' }))).toContain('!not timestamptz: "2023-11-14T22:13:20"');
  });

  it('treats null as its own value, not as a string or an absent column', () => {
    expect(mismatch(withRow(PYICEBERG, 0, { customer_name: null }))).toContain('customer_name=null');
    expect(mismatch(withRow(PYICEBERG, 0, { customer_name: 'null' }))).toContain('customer_name="null"');
    const { is_gift: _dropped, ...rest } = PYICEBERG[0]!;
    expect(mismatch([rest, ...PYICEBERG.slice(1)])).toContain('is_gift=!absent');
  });

  it('refuses rows with columns outside the schema', () => {
    expect(() => verifyTableRows({ expected: EXPECTED, actual: withRow(PYICEBERG, 0, { extra: 1 }), columns: COLUMNS, reader: 'r' })).toThrow(
      /columns not in the schema: extra/,
    );
  });

  it('shows at most 10 missing and 10 unexpected rows', () => {
    const many: Row[] = Array.from({ length: 30 }, (_, i) => ({ id: i }));
    const message = mismatch(
      many.map((r) => ({ id: Number(r['id']) + 100 })),
      many,
      [{ name: 'id', type: 'int' }],
    );
    expect(message).toContain('missing rows (expected, not read by test-reader) (10 of 30 distinct)');
    expect(message).toContain('unexpected rows (read by test-reader, not expected) (10 of 30 distinct)');
    expect(message.split('\n').filter((line) => line.startsWith('  id=')).length).toBe(20);
  });
});

describe('canonicalizer', () => {
  it('compares NaN by name and floats at their own precision', () => {
    expect(canonicalizer('double')(Number.NaN)).toBe('NaN');
    expect(canonicalizer('double')('NaN')).toBe('NaN');
    expect(canonicalizer('float')(1.100000023841858)).toBe(canonicalizer('float')(1.1));
    expect(canonicalizer('double')(1.100000023841858)).not.toBe(canonicalizer('double')(1.1));
  });

  it('reads dates, times, nanosecond timestamps, uuids and bytes in all their forms', () => {
    expect(canonicalizer('date')(19_676)).toBe('2023-11-15');
    expect(canonicalizer('date')('2023-02-30')).toMatch(/^!not date/);
    expect(canonicalizer('time')('10:11:12.5')).toBe('10:11:12.500000');
    expect(canonicalizer('time')(36_672_500_000n)).toBe('10:11:12.500000');
    expect(canonicalizer('timestamp_ns')('1969-12-31T23:59:59.999999999')).toBe(canonicalizer('timestamp_ns')(-1n));
    expect(canonicalizer('timestamp')('2023-11-14T22:13:20+00:00')).toMatch(/^!not timestamp/);
    expect(canonicalizer('timestamp')('2023-11-14T22:13:20.0000001')).toMatch(/^!not timestamp/);
    expect(canonicalizer('uuid')('F79C3E09-677C-4BBD-A479-3F349CB785E7')).toBe('f79c3e09-677c-4bbd-a479-3f349cb785e7');
    expect(canonicalizer('fixed[2]')(new Uint8Array([0xab, 0x01]))).toBe('ab01');
    expect(canonicalizer('fixed[2]')('ab')).toMatch(/^!not fixed\[2\]/);
    expect(canonicalizer('binary')('AB01')).toBe('ab01');
    expect(canonicalizer('int')(2 ** 31)).toMatch(/^!not int/);
    expect(canonicalizer('decimal(38, 0)')(12345678901234567890123456789n)).toBe('12345678901234567890123456789');
  });

  it('fails on a type it does not know rather than comparing loosely', () => {
    expect(() => canonicalizer('geometry', 'g')).toThrow(/column g has a type the verifier does not know/);
  });
});

describe('verifyTableSchema', () => {
  it('accepts the same types in either spelling and names every difference', () => {
    verifyTableSchema({ expected: COLUMNS, actual: COLUMNS.map((c) => ({ ...c, type: c.type.replace(' ', '') })), reader: 'spark' });
    expect(() =>
      verifyTableSchema({ expected: COLUMNS, actual: [...COLUMNS.slice(0, 3), { name: 'ordered_at', type: 'timestamp' }, ...COLUMNS.slice(4)], reader: 'spark' }),
    ).toThrow(/spark sees a different schema:\n {2}column 3: expected ordered_at timestamptz, read ordered_at timestamp/);
  });
});
