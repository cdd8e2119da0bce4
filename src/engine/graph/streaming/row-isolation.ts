/**
 * Finds the records a stateless flow's SQL fails on (a value that does not cast, a division by
 * zero) when it fails on a Kafka batch: the batch's rows are split in halves until the rows that
 * fail alone are found (a few runs over ever smaller parts), so a poison record goes to the dead
 * letters with DuckDB's reason and never stops the stream. A query that cannot be planned fails
 * on any rows, and a batch DuckDB cannot hold fails as a whole: both stop the flow instead.
 */
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../../../duckdb/session.js';
import { FlowError } from '../../../errors.js';

/** A row of a Kafka batch (its coordinates) and why the flow failed on it. */
export interface FailedRow {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly reason: string;
}

const STATEMENT_ERROR = /^(Parser|Binder|Catalog) Error/;
const RESOURCE_ERROR = /^(Out of Memory|IO) Error/;

/**
 * The rows of `input` on which `run` (the flow over a relation) fails, each alone. `run` is
 * called with relations holding parts of the input's rows and columns.
 */
export async function failingRows(session: DuckDbSession, flowName: string, input: string, run: (relation: string) => Promise<void>): Promise<FailedRow[]> {
  const numbered = `${input}__numbered`;
  const part = `${input}__part`;
  await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(numbered)} AS SELECT row_number() OVER () AS __thund_row, * FROM ${quoteIdentifier(input)}`);
  const [count] = await session.queryJson(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${quoteIdentifier(numbered)}`);
  const failures: FailedRow[] = [];
  const attempt = async (from: number, to: number): Promise<void> => {
    await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(part)} AS SELECT * EXCLUDE (__thund_row) FROM ${quoteIdentifier(numbered)} WHERE __thund_row BETWEEN ${from} AND ${to}`);
    try {
      await run(part);
    } catch (error) {
      const message = duckDbMessage(error);
      if (STATEMENT_ERROR.test(message)) throw new FlowError(`flow ${flowName}: SQL error: ${message}`, { cause: error, context: { flow: flowName } });
      if (RESOURCE_ERROR.test(message)) {
        throw new FlowError(`flow ${flowName}: DuckDB could not run the batch: ${message} (a smaller batch or a higher memory limit helps)`, { cause: error, retryable: true, context: { flow: flowName } });
      }
      if (from === to) {
        const [row] = await session.queryJson(`SELECT _kafka_topic AS topic, _kafka_partition AS p, _kafka_offset::VARCHAR AS o FROM ${quoteIdentifier(part)}`);
        failures.push({ topic: String(row?.['topic']), partition: Number(row?.['p']), offset: BigInt(String(row?.['o'])), reason: message });
        return;
      }
      const middle = Math.floor((from + to) / 2);
      await attempt(from, middle);
      await attempt(middle + 1, to);
    }
  };
  try {
    const rows = Number(count?.['n'] ?? 0);
    if (rows > 0) await attempt(1, rows);
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(part)}`);
    await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(numbered)}`);
  }
  return failures;
}
