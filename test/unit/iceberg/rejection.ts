import { expect } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';

/** Runs `fn`, expects it to throw an IcebergFormatError, and returns that error for its message. */
export function rejection(fn: () => unknown): IcebergFormatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IcebergFormatError);
    return e as IcebergFormatError;
  }
  throw new Error('expected a rejection');
}
