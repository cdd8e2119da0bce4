import { expect, it } from 'vitest';
import { CommitConflictError, InvalidInputError, ThundError } from '../../../src/errors.js';

it('marks a commit conflict retryable unless the thrower knows a retry cannot help', () => {
  expect(new CommitConflictError('main moved').retryable).toBe(true);
  expect(new CommitConflictError('created concurrently', { retryable: false }).retryable).toBe(false);
});

it('keeps code, context and cause on every error', () => {
  const cause = new Error('low level');
  const error = new InvalidInputError('bad column', { cause, context: { column: 'wait_time' } });
  expect(error).toBeInstanceOf(ThundError);
  expect([error.code, error.name, error.context['column'], error.cause]).toEqual(['INVALID_INPUT', 'InvalidInputError', 'wait_time', cause]);
});
