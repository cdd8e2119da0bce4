/**
 * Errors raised by the stateful operators. Each names what is wrong (expectation, column) and
 * carries one offending row as JSON so the user can find it in the source.
 */
import { ThundError, type ThundErrorOptions } from '../../errors.js';

/** An expectation with action `fail` saw a row that does not meet it; nothing of the batch may be committed. */
export class ExpectationFailedError extends ThundError {
  constructor(
    readonly expectation: string,
    readonly failedRows: number,
    readonly sampleRow: string,
    options: ThundErrorOptions = {},
  ) {
    super('EXPECTATION_FAILED', `Expectation "${expectation}" failed for ${failedRows} row(s); for example ${sampleRow}`, {
      ...options,
      context: { expectation, failedRows, sampleRow, ...options.context },
    });
  }
}

/** A change event cannot be applied: a null key or sequence value, or two events of one key at one sequence value. */
export class ChangeEventError extends ThundError {
  constructor(
    readonly changeCode: 'CDC_NULL_KEY' | 'CDC_NULL_SEQUENCE' | 'CDC_DUPLICATE_SEQUENCE',
    readonly column: string,
    readonly sampleRow: string,
    readonly reason: string,
    options: ThundErrorOptions = {},
  ) {
    super(changeCode, `${reason}; for example ${sampleRow}`, { ...options, context: { column, sampleRow, ...options.context } });
  }

  /** The same refusal, its message led by where it happened (a flow and its target table). */
  within(where: string, context: Readonly<Record<string, string>>): ChangeEventError {
    return new ChangeEventError(this.changeCode, this.column, this.sampleRow, `${where}: ${this.reason}`, { cause: this, context });
  }
}
