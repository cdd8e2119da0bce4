/**
 * Registers each pipeline source as a DuckDB view the flow SQL can read by name.
 */
import { InvalidInputError } from '../errors.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import type { ParquetSourceSpec } from '../pipeline/spec.js';

export async function registerParquetSource(session: DuckDbSession, name: string, source: ParquetSourceSpec): Promise<void> {
  for (const pattern of source.paths) {
    const [row] = await session.queryJson(`SELECT count(*) AS files FROM glob(${quoteLiteral(pattern)})`);
    if (row === undefined || Number(row['files']) === 0) {
      throw new InvalidInputError(`Source "${name}": no Parquet file matches ${pattern}`, {
        context: { source: name, path: pattern },
      });
    }
  }
  const files = `[${source.paths.map(quoteLiteral).join(', ')}]`;
  try {
    await session.run(`CREATE VIEW ${quoteIdentifier(name)} AS SELECT * FROM read_parquet(${files})`);
    await session.run(`SELECT * FROM ${quoteIdentifier(name)} LIMIT 0`);
  } catch (error) {
    throw new InvalidInputError(`Source "${name}": cannot read ${source.paths.join(', ')} as Parquet: ${duckDbMessage(error)}`, {
      cause: error,
      context: { source: name },
    });
  }
}
