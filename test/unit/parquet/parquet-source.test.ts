/**
 * The Parquet source connector on local files (S3 paths are covered against MinIO in
 * test/integration/s3-parquet-source.test.ts): views over paths and globs, and clear refusals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createParquetSourceConnector, parquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { InvalidInputError } from '../../../src/errors.js';
import type { SourceDataset } from '../../../src/pipeline/ir/dataset.js';

let work: string;
let session: DuckDbSession;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-parquet-source-'));
  session = await DuckDbSession.open();
  for (const [name, first] of [['a', 0], ['b', 10]] as const) {
    await session.run(`COPY (SELECT range::BIGINT AS id FROM range(${first}, ${first + 10})) TO ${quoteLiteral(join(work, `${name}.parquet`))} (FORMAT parquet)`);
  }
  writeFileSync(join(work, 'c.parquet'), 'not parquet at all');
});

afterEach(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

function source(name: string, ...paths: string[]): SourceDataset {
  return { kind: 'source', name, source: { format: 'parquet', paths }, origin: { file: 'test.yaml', line: 1, column: 1 } };
}

const opened = async (): Promise<DuckDbSession> => session;

/** For a fingerprint that must not need DuckDB. */
const noSession = (): Promise<DuckDbSession> => Promise.reject(new Error('DuckDB was opened'));

async function ids(view: string): Promise<number[]> {
  return (await session.queryJson(`SELECT id FROM ${view} ORDER BY id`)).map((row) => Number(row['id']));
}

describe('Parquet source connector (local files)', () => {
  it('createParquetSourceConnector reads local paths and globs as parquetSourceConnector does', async () => {
    const connector = createParquetSourceConnector();
    try {
      await connector.register(session, source('globbed', join(work, '[ab].parquet')));
      await parquetSourceConnector.register(session, source('listed', join(work, 'a.parquet'), join(work, 'b.parquet')));
      const expected = Array.from({ length: 20 }, (_, i) => i);
      expect(await ids('globbed')).toEqual(expected);
      expect(await ids('listed')).toEqual(expected);
    } finally {
      await connector.close();
    }
  });

  it('fails naming the source and pattern when nothing matches, or a file is not Parquet', async () => {
    const connector = createParquetSourceConnector();
    try {
      const pattern = join(work, 'none-*.parquet');
      const empty = connector.register(session, source('empty', pattern));
      await expect(empty).rejects.toBeInstanceOf(InvalidInputError);
      await expect(empty).rejects.toThrow(`Source "empty": no Parquet file matches ${pattern}`);
      await expect(connector.register(session, source('broken', join(work, 'c.parquet')))).rejects.toThrow(/Source "broken": cannot read .*c\.parquet as Parquet/);
    } finally {
      await connector.close();
    }
  });

  it('fingerprints the matched files: unchanged files give the same text; a new or rewritten file another', async () => {
    const connector = createParquetSourceConnector();
    try {
      const globbed = source('fp', join(work, '[abd].parquet'));
      const before = await connector.fingerprint!(opened, globbed);
      expect(await connector.fingerprint!(opened, globbed)).toBe(before);
      expect(await parquetSourceConnector.fingerprint!(opened, globbed)).toBe(before);
      await session.run(`COPY (SELECT 99 AS id) TO '${join(work, 'd.parquet')}' (FORMAT parquet)`);
      const added = await connector.fingerprint!(opened, globbed);
      expect(added).not.toBe(before);
      await session.run(`COPY (SELECT 99 AS id, 1 AS extra) TO '${join(work, 'd.parquet')}' (FORMAT parquet)`);
      expect(await connector.fingerprint!(opened, globbed)).not.toBe(added);
    } finally {
      await connector.close();
    }
  });

  it('fingerprints a plain path, without DuckDB, as DuckDB’s glob matching only that file does', async () => {
    const connector = createParquetSourceConnector();
    try {
      for (const fingerprinter of [connector, parquetSourceConnector]) {
        const plain = await fingerprinter.fingerprint!(noSession, source('plain', join(work, 'a.parquet'), join(work, 'b.parquet')));
        expect(plain).toBe(await fingerprinter.fingerprint!(opened, source('globbed', join(work, '[a].parquet'), join(work, 'b.parque[t]'))));
        await session.run(`COPY (SELECT 7 AS id) TO ${quoteLiteral(join(work, 'a.parquet'))} (FORMAT parquet)`);
        expect(await fingerprinter.fingerprint!(noSession, source('plain', join(work, 'a.parquet'), join(work, 'b.parquet')))).not.toBe(plain);
        for (const missing of [join(work, 'none.parquet'), work, `${join(work, 'a.parquet')}/`]) {
          expect(await session.queryJson(`SELECT file FROM glob(${quoteLiteral(missing)})`), missing).toEqual([]);
          await expect(fingerprinter.fingerprint!(noSession, source('missing', missing))).rejects.toThrow(`Source "missing": no Parquet file matches ${missing}`);
        }
      }
    } finally {
      await connector.close();
    }
  });

  it('refuses S3 paths without S3 settings, naming the source and the path', async () => {
    const connector = createParquetSourceConnector();
    try {
      const attempt = connector.register(session, source('remote', 's3://bucket/data/*.parquet'));
      await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
      await expect(attempt).rejects.toThrow('Source "remote": s3://bucket/data/*.parquet is on S3 but no S3 settings');
    } finally {
      await connector.close();
    }
    await expect(parquetSourceConnector.register(session, source('remote', 's3a://bucket/x.parquet'))).rejects.toThrow(
      /Source "remote": s3a:\/\/bucket\/x\.parquet is on S3/,
    );
  });
});
