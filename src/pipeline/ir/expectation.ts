/** Data quality expectations on a dataset: a SQL condition each row should satisfy. */
import type { Origin } from './origin.js';

/** warn: keep the row and count it; drop: leave it out and count it; fail: stop, commit nothing. */
export type ExpectationAction = 'warn' | 'drop' | 'fail';

export const EXPECTATION_ACTIONS: readonly ExpectationAction[] = ['warn', 'drop', 'fail'];

export interface Expectation {
  readonly name: string;
  /** A DuckDB SQL boolean expression over the dataset's columns. */
  readonly condition: string;
  readonly action: ExpectationAction;
  readonly origin: Origin;
}
