/**
 * Data quality expectations on a batch, as Databricks' declarative pipelines define them:
 * `warn` keeps failing rows and counts them, `drop` removes and counts them, `fail` stops the
 * batch with ExpectationFailedError (the caller commits nothing of it). A row meets an
 * expectation only when its condition is TRUE: a NULL result counts as a failure, so
 * `amount > 0` also catches a missing amount.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { ExpectationFailedError } from './operator-errors.js';
import { sampleRow } from './sql.js';

export const EXPECTATION = z.strictObject({
  name: z.string().min(1),
  /** A DuckDB boolean expression over the batch's columns. */
  condition: z.string().min(1),
  action: z.enum(['warn', 'drop', 'fail']),
});
export type Expectation = z.infer<typeof EXPECTATION>;

export interface ExpectationCount {
  readonly name: string;
  readonly action: Expectation['action'];
  readonly failedRows: number;
}

export interface ExpectationResult {
  /** The rows that pass on (all rows but those failing a `drop` expectation). */
  readonly output: string;
  readonly counts: readonly ExpectationCount[];
}

/** Checks `input` against the expectations and writes the surviving rows to a new table `output`. */
export async function applyExpectations(
  session: DuckDbSession,
  input: string,
  expectations: readonly Expectation[],
  output: string,
): Promise<ExpectationResult> {
  const checked = z.array(EXPECTATION).safeParse(expectations);
  if (!checked.success) throw new InvalidInputError(`Invalid expectations: ${checked.error.issues[0]?.message ?? 'unexpected shape'}`);
  const names = new Set<string>();
  for (const e of expectations) {
    if (names.has(e.name)) throw new InvalidInputError(`Expectation "${e.name}" is declared twice`, { context: { expectation: e.name } });
    names.add(e.name);
  }
  const violates = (e: Expectation): string => `(${e.condition}) IS NOT TRUE`;
  const counts: ExpectationCount[] = [];
  if (expectations.length > 0) {
    const countList = expectations.map((e, i) => `count(*) FILTER (WHERE ${violates(e)})::BIGINT AS c${i}`).join(', ');
    const [row] = await query(session, `SELECT ${countList} FROM ${quoteIdentifier(input)}`, expectations);
    expectations.forEach((e, i) => counts.push({ name: e.name, action: e.action, failedRows: Number(row?.[`c${i}`] ?? 0) }));
  }
  for (const [i, e] of expectations.entries()) {
    const failed = counts[i]!.failedRows;
    if (e.action === 'fail' && failed > 0) {
      throw new ExpectationFailedError(e.name, failed, (await sampleRow(session, quoteIdentifier(input), violates(e))) ?? '{}');
    }
  }
  const dropped = expectations.filter((e) => e.action === 'drop').map(violates);
  const where = dropped.length === 0 ? '' : `WHERE NOT (${dropped.join(' OR ')})`;
  await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(output)} AS SELECT * FROM ${quoteIdentifier(input)} ${where}`);
  return { output, counts };
}

async function query(session: DuckDbSession, sql: string, expectations: readonly Expectation[]): Promise<Record<string, unknown>[]> {
  try {
    return await session.queryJson(sql);
  } catch (error) {
    throw new InvalidInputError(`An expectation cannot be evaluated (${expectations.map((e) => e.name).join(', ')}): ${duckDbMessage(error)}`, {
      cause: error,
    });
  }
}
