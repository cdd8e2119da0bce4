/**
 * The Parquet file source: exposes local files (paths or globs) as a DuckDB view that flow SQL
 * reads by name. Fails before any flow runs when a pattern matches nothing or a file is not Parquet.
 */
import { InvalidInputError } from '../../src/errors.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../src/duckdb/session.js';
import type { SourceConnector } from '../source.js';

export interface ParquetSource {
  /** Absolute paths or globs. */
  readonly paths: readonly string[];
}

export async function registerParquetSource(session: DuckDbSession, name: string, source: ParquetSource): Promise<void> {
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

export const parquetSourceConnector: SourceConnector = {
  register: (session, source) => registerParquetSource(session, source.name, source),
};
