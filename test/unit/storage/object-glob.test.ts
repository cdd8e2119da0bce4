import { describe, expect, it } from 'vitest';
import { globToRegExp, hasGlob, literalPrefix } from '../../../connectors/storage/object-glob.js';

const KEYS = [
  'data/a.parquet',
  'data/b.parquet',
  'data/ab.parquet',
  'data/x/c.parquet',
  'data/x/y/d.parquet',
  'data/notes.txt',
  'data/a.parquet.bak',
  'other/a.parquet',
  'data/[literal].parquet',
];

const matches = (pattern: string) => KEYS.filter((key) => globToRegExp(pattern).test(key));

describe('object key globs', () => {
  it('* stays within one segment', () => {
    expect(matches('data/*.parquet')).toEqual(['data/a.parquet', 'data/b.parquet', 'data/ab.parquet', 'data/[literal].parquet']);
    expect(matches('*/a.parquet')).toEqual(['data/a.parquet', 'other/a.parquet']);
  });

  it('** as a segment spans zero or more segments', () => {
    expect(matches('data/**/*.parquet')).toEqual([
      'data/a.parquet',
      'data/b.parquet',
      'data/ab.parquet',
      'data/x/c.parquet',
      'data/x/y/d.parquet',
      'data/[literal].parquet',
    ]);
    expect(matches('**/c.parquet')).toEqual(['data/x/c.parquet']);
    expect(matches('data/x/**')).toEqual(['data/x/c.parquet', 'data/x/y/d.parquet']);
    // Inside a segment ** is only *.
    expect(matches('data/a**')).toEqual(['data/a.parquet', 'data/ab.parquet', 'data/a.parquet.bak']);
  });

  it('? is one character, [..] one of a set, [!..] one not in it', () => {
    expect(matches('data/?.parquet')).toEqual(['data/a.parquet', 'data/b.parquet']);
    expect(matches('data/[b-c].parquet')).toEqual(['data/b.parquet']);
    expect(matches('data/[!a].parquet')).toEqual(['data/b.parquet']);
    expect(matches('data/x?c.parquet')).toEqual([]);
  });

  it('treats regex characters and an unclosed [ literally', () => {
    expect(matches('data/a.parquet')).toEqual(['data/a.parquet']);
    expect(globToRegExp('a+b(c)').test('a+b(c)')).toBe(true);
    expect(globToRegExp('data/[literal.parquet').test('data/[literal.parquet')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('finds the literal prefix a listing starts from', () => {
    expect(literalPrefix('data/x/*.parquet')).toBe('data/x/');
    expect(literalPrefix('data/a?.parquet')).toBe('data/a');
    expect(literalPrefix('[ab]/c')).toBe('');
    expect(literalPrefix('plain/key.parquet')).toBe('plain/key.parquet');
    expect(hasGlob('plain/key.parquet')).toBe(false);
    expect(hasGlob('a/[b]')).toBe(true);
  });
});
