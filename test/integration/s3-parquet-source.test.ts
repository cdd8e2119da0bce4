/**
 * Parquet sources on S3 (the stack's MinIO): exact keys, prefixes and globs are listed across
 * pages, matched, staged locally and exposed as a DuckDB view with exactly the rows written;
 * patterns matching nothing and non-Parquet objects fail naming the source; close() removes the
 * staging folder.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParquetSourceConnector, type ClosableSourceConnector } from '../../connectors/parquet/parquet-source.js';
import { S3FileIO, type S3FileIOOptions } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { InvalidInputError } from '../../src/errors.js';
import type { SourceDataset } from '../../src/pipeline/ir/dataset.js';
import { testS3Bucket, testS3FileIOOptions } from '../stack/s3-env.js';

/** Object key under the test prefix → the first id of the 10 rows it holds. */
const FILES: Readonly<Record<string, number>> = {
  '2026/01/a.parquet': 0,
  '2026/01/b.parquet': 100,
  '2026/02/c.parquet': 200,
  '2026/x1.parquet': 300,
  '2027/d.parquet': 400,
  'top.parquet': 500,
};

let options: S3FileIOOptions;
let io: S3FileIO;
let root: string;
let work: string;
let session: DuckDbSession;

beforeAll(async () => {
  options = { ...testS3FileIOOptions(), listPageSize: 2 };
  io = new S3FileIO(options);
  root = `s3://${testS3Bucket()}/it-s3-parquet-source/${randomUUID()}`;
  work = mkdtempSync(join(tmpdir(), 'thund-s3-source-it-'));
  session = await DuckDbSession.open();
  for (const [key, first] of Object.entries(FILES)) {
    const local = join(work, `${first}.parquet`);
    await session.run(
      `COPY (SELECT range::BIGINT AS id, 'row ' || range AS label FROM range(${first}, ${first + 10})) TO ${quoteLiteral(local)} (FORMAT parquet)`,
    );
    await io.writeNewFromFile(`${root}/${key}`, local);
  }
  await io.writeNew(`${root}/2026/01/notes.txt`, new TextEncoder().encode('not parquet'));
  await io.writeNew(`${root}/junk/fake.parquet`, new TextEncoder().encode('PAR1 but not really a parquet file'));
});

afterAll(() => {
  session?.close();
  io?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function source(name: string, ...paths: string[]): SourceDataset {
  return { kind: 'source', name, source: { format: 'parquet', paths }, origin: { file: 'test.yaml', line: 1, column: 1 } };
}

/** The ids the files under the given keys hold, as the test wrote them. */
function idsOf(...keys: string[]): number[] {
  return keys.flatMap((key) => Array.from({ length: 10 }, (_, i) => FILES[key]! + i)).sort((a, b) => a - b);
}

async function viewIds(name: string): Promise<number[]> {
  const rows = await session.queryJson(`SELECT id, label FROM ${name} ORDER BY id`);
  for (const row of rows) expect(row['label']).toBe(`row ${String(row['id'])}`);
  return rows.map((row) => Number(row['id']));
}

async function withConnector<T>(use: (connector: ClosableSourceConnector, stagingDir: string) => Promise<T>): Promise<T> {
  const stagingDir = mkdtempSync(join(tmpdir(), 'thund-staging-it-'));
  const connector = createParquetSourceConnector({ s3: options, stagingDir });
  try {
    return await use(connector, stagingDir);
  } finally {
    await connector.close();
    rmSync(stagingDir, { recursive: true, force: true });
  }
}

describe('Parquet sources on S3', () => {
  it('a glob with * selects the files of one level, and the view returns exactly their rows', async () => {
    await withConnector(async (connector) => {
      await connector.register(session, source('months', `${root}/2026/*/*.parquet`));
      expect(await viewIds('months')).toEqual(idsOf('2026/01/a.parquet', '2026/01/b.parquet', '2026/02/c.parquet'));
    });
  });

  it('** spans any depth, ? and [..] match single characters', async () => {
    await withConnector(async (connector) => {
      await connector.register(session, source('deep', `${root}/**/[a-c].parquet`));
      expect(await viewIds('deep')).toEqual(idsOf('2026/01/a.parquet', '2026/01/b.parquet', '2026/02/c.parquet'));
      await connector.register(session, source('one_char', `${root}/2026/x?.parquet`, `${root}/202[!6]/*.parquet`));
      expect(await viewIds('one_char')).toEqual(idsOf('2026/x1.parquet', '2027/d.parquet'));
    });
  });

  it('a prefix ending in / means every .parquet object under it; an exact key means that object', async () => {
    await withConnector(async (connector) => {
      await connector.register(session, source('year', `${root}/2026/02/`));
      expect(await viewIds('year')).toEqual(idsOf('2026/02/c.parquet'));
      await connector.register(session, source('exact', `${root}/top.parquet`, `${root}/2027/`));
      expect(await viewIds('exact')).toEqual(idsOf('top.parquet', '2027/d.parquet'));
    });
  });

  it('fingerprints what a source matches: the same objects give the same text, other objects another', async () => {
    await withConnector(async (connector) => {
      const fingerprint = (pattern: string) => connector.fingerprint!(async () => session, source('fp', pattern));
      const months = await fingerprint(`${root}/2026/*/*.parquet`);
      expect(await fingerprint(`${root}/2026/*/*.parquet`)).toBe(months);
      expect(await fingerprint(`${root}/2026/01/*.parquet`)).not.toBe(months);
    });
  });

  it('fails naming the source and the pattern when nothing matches', async () => {
    await withConnector(async (connector) => {
      for (const pattern of [`${root}/2030/*.parquet`, `${root}/nothing/`, `${root}/missing.parquet`]) {
        const attempt = connector.register(session, source('empty', pattern));
        await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
        await expect(attempt).rejects.toThrow(`Source "empty": no Parquet file matches ${pattern}`);
      }
    });
  });

  it('refuses an object that is not Parquet before downloading it', async () => {
    await withConnector(async (connector, stagingDir) => {
      for (const pattern of [`${root}/2026/01/notes.txt`, `${root}/junk/*`]) {
        const attempt = connector.register(session, source('bad', pattern));
        await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
        await expect(attempt).rejects.toThrow(/Source "bad": .*(notes\.txt|fake\.parquet) is not a Parquet file/);
      }
      expect(readdirSync(stagingDir)).toEqual([]);
    });
  });

  it('stages the files under the staging folder and close() removes them', async () => {
    const stagingDir = mkdtempSync(join(tmpdir(), 'thund-staging-it-'));
    const connector = createParquetSourceConnector({ s3: options, stagingDir });
    try {
      await connector.register(session, source('staged', `${root}/2026/01/[ab].parquet`));
      const [runFolder] = readdirSync(stagingDir);
      expect(runFolder).toBeDefined();
      expect(readdirSync(join(stagingDir, runFolder!, '0')).length).toBe(2);
      expect(await viewIds('staged')).toEqual(idsOf('2026/01/a.parquet', '2026/01/b.parquet'));
      await connector.close();
      expect(readdirSync(stagingDir)).toEqual([]);
    } finally {
      await connector.close();
      rmSync(stagingDir, { recursive: true, force: true });
    }
  });
});
