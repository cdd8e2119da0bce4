import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { buildSummary, type SummaryCounts, ZERO_COUNTS } from '../../../src/iceberg/snapshot-summary.js';

const counts = (c: Partial<SummaryCounts>): SummaryCounts => ({ ...ZERO_COUNTS, ...c });

describe('buildSummary', () => {
  it('first append: added counters and totals from zero, no zero-valued added/removed keys', () => {
    const s = buildSummary({
      operation: 'append',
      added: counts({ dataFiles: 2n, records: 100n, filesSize: 2048n }),
      removed: ZERO_COUNTS,
      changedPartitionCount: 2,
    });
    expect(s).toEqual({
      operation: 'append',
      'added-data-files': '2',
      'added-records': '100',
      'added-files-size': '2048',
      'changed-partition-count': '2',
      'total-records': '100',
      'total-files-size': '2048',
      'total-data-files': '2',
      'total-delete-files': '0',
      'total-position-deletes': '0',
      'total-equality-deletes': '0',
    });
  });

  it('carries totals across two appends and an overwrite', () => {
    const first = buildSummary({ operation: 'append', added: counts({ dataFiles: 2n, records: 100n, filesSize: 2048n }), removed: ZERO_COUNTS });
    const second = buildSummary({
      operation: 'append',
      added: counts({ dataFiles: 1n, records: 30n, filesSize: 700n }),
      removed: ZERO_COUNTS,
      previous: first,
    });
    expect(second['total-data-files']).toBe('3');
    expect(second['total-records']).toBe('130');
    expect(second['total-files-size']).toBe('2748');
    const overwrite = buildSummary({
      operation: 'overwrite',
      added: counts({ dataFiles: 1n, records: 20n, filesSize: 500n, deleteFiles: 1n, positionDeleteFiles: 1n, positionDeletes: 4n }),
      removed: counts({ dataFiles: 2n, records: 100n, filesSize: 2048n }),
      previous: second,
      extra: { 'engine-name': 'thund' },
    });
    expect(overwrite).toEqual({
      operation: 'overwrite',
      'added-data-files': '1',
      'added-delete-files': '1',
      'added-position-delete-files': '1',
      'added-records': '20',
      'added-files-size': '500',
      'added-position-deletes': '4',
      'deleted-data-files': '2',
      'deleted-records': '100',
      'removed-files-size': '2048',
      'total-records': '50',
      'total-files-size': '1200',
      'total-data-files': '2',
      'total-delete-files': '1',
      'total-position-deletes': '4',
      'total-equality-deletes': '0',
      'engine-name': 'thund',
    });
  });

  it('drops a total the previous summary lacks or that is not a number', () => {
    const s = buildSummary({
      operation: 'append',
      added: counts({ dataFiles: 1n, records: 5n }),
      removed: ZERO_COUNTS,
      previous: { operation: 'append', 'total-data-files': '4', 'total-records': 'n/a' },
    });
    expect(s['total-data-files']).toBe('5');
    expect(s['total-records']).toBeUndefined();
    expect(s['total-files-size']).toBeUndefined();
  });

  it('handles counts above 2^53 exactly', () => {
    const s = buildSummary({
      operation: 'append',
      added: counts({ records: 9007199254740993n }),
      removed: ZERO_COUNTS,
      previous: { operation: 'append', 'total-records': '9223372036854775000' },
    });
    expect(s['added-records']).toBe('9007199254740993');
    expect(s['total-records']).toBe('9232379236109515993');
  });

  it('refuses extra keys that would override computed ones', () => {
    expect(() => buildSummary({ operation: 'append', added: ZERO_COUNTS, removed: ZERO_COUNTS, extra: { operation: 'delete' } })).toThrow(
      IcebergFormatError,
    );
    expect(() => buildSummary({ operation: 'append', added: ZERO_COUNTS, removed: ZERO_COUNTS, extra: { 'total-records': '1' } })).toThrow(
      /total-records/,
    );
  });
});
