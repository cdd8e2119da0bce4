/**
 * Two writers — two RestCatalog clients, two DuckDB sessions — append to one table of the REST
 * fixture (files in MinIO) at the same time. Each round both load the table and write their data
 * files, then meet at a barrier and commit together, so one of them always meets a 409 and has to
 * rebuild its manifest list on the other's snapshot. Afterwards every commit is in one history
 * chain, every data file is live, and the rows DuckDB reads from the live files add up.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { ancestorsOf } from '../../src/iceberg/snapshot-ancestry.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot, type SnapshotCommitResult } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3FileIOOptions } from '../stack/s3-env.js';

const ROUNDS = 20;
const ROWS_PER_COMMIT = 25;
const WRITERS = 2;

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'writer', required: true, type: primitive('int') },
  ],
};

interface Writer {
  readonly index: number;
  readonly catalog: RestCatalog;
  readonly io: S3FileIO;
  readonly session: DuckDbSession;
  readonly commits: { result: SnapshotCommitResult; files: DataFile[] }[];
}

/** Resolves when `parties` callers have arrived for the same round. */
class RoundBarrier {
  private readonly waiting = new Map<number, { count: number; release: () => void; done: Promise<void> }>();
  constructor(private readonly parties: number) {}

  arrive(round: number): Promise<void> {
    let entry = this.waiting.get(round);
    if (entry === undefined) {
      let release = (): void => undefined;
      const done = new Promise<void>((resolve) => (release = resolve));
      entry = { count: 0, release, done };
      this.waiting.set(round, entry);
    }
    entry.count += 1;
    if (entry.count === this.parties) entry.release();
    return entry.done;
  }
}

const namespace = [`thund_concurrency_${randomUUID().slice(0, 8)}`];
const id: TableIdentifier = { namespace, name: 'appends' };
const writers: Writer[] = [];
let scratch: string;

beforeAll(async () => {
  const uri = requireServiceEnv('THUND_TEST_REST_URI');
  for (let index = 0; index < WRITERS; index += 1) {
    const io = new S3FileIO(testS3FileIOOptions());
    writers.push({ index, io, catalog: await RestCatalog.connect({ uri, io }), session: await DuckDbSession.open(), commits: [] });
  }
  const [first] = writers;
  if (first === undefined) throw new Error('no writers');
  await first.catalog.createNamespace(namespace);
  await first.catalog.createTable(id, { schema });
  scratch = await mkdtemp(join(tmpdir(), 'thund-rest-concurrency-'));
});

afterAll(async () => {
  for (const writer of writers) writer.session.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** Ids of writer w in round r: a block of its own, so duplicates and losses both show. */
const firstIdOf = (writer: number, round: number): number => (writer * ROUNDS + round) * ROWS_PER_COMMIT;

async function runWriter(writer: Writer, barrier: RoundBarrier): Promise<void> {
  for (let round = 0; round < ROUNDS; round += 1) {
    const { metadata } = await writer.catalog.loadTable(id);
    const from = firstIdOf(writer.index, round);
    const files = await writeDataFiles({
      session: writer.session,
      query: `SELECT range::BIGINT AS id, ${writer.index}::INTEGER AS writer FROM range(${from}, ${from + ROWS_PER_COMMIT})`,
      schema,
      specId: metadata.defaultSpecId,
      dataLocation: dataLocation(metadata),
      io: writer.io,
      properties: metadata.properties,
      writerName: `writer-${writer.index}`,
    });
    await barrier.arrive(round);
    const result = await commitSnapshot({
      catalog: writer.catalog,
      identifier: id,
      base: { metadata, io: writer.io, create: false },
      mode: 'append',
      addedFiles: files,
      summaryProperties: { 'thund.test.writer': String(writer.index), 'thund.test.round': String(round) },
    });
    writer.commits.push({ result, files });
  }
}

async function countRows(io: S3FileIO, session: DuckDbSession, files: readonly DataFile[]): Promise<Record<string, number>> {
  const paths: string[] = [];
  for (const [index, file] of files.entries()) {
    const path = join(scratch, `${index}.parquet`);
    await writeFile(path, await io.read(file.filePath));
    paths.push(quoteLiteral(path));
  }
  const [row] = await session.queryJson(
    `SELECT count(*) AS n, count(DISTINCT id) AS ids, min(id) AS lo, max(id) AS hi FROM read_parquet([${paths.join(', ')}])`,
  );
  return Object.fromEntries(Object.entries(row ?? {}).map(([key, value]) => [key, Number(value)]));
}

describe('two REST writers appending to the same table at once', () => {
  it(`lands all ${WRITERS * ROUNDS} commits, each once, with every file live and every row counted once`, async () => {
    const barrier = new RoundBarrier(WRITERS);
    await Promise.all(writers.map((writer) => runWriter(writer, barrier)));
    const [reader] = writers;
    if (reader === undefined) throw new Error('no writers');

    const commits = writers.flatMap((writer) => writer.commits);
    expect(commits).toHaveLength(WRITERS * ROUNDS);
    // Both commit in the same instant from the same base: one of each pair had to retry (more
    // retries are possible: the fixture may answer a concurrent commit with a 5xx, which the
    // loop resolves by looking for its snapshot and committing again).
    const retries = commits.reduce((sum, { result }) => sum + result.attempts - 1, 0);
    expect(retries).toBeGreaterThanOrEqual(ROUNDS);
    expect(commits.some(({ result }) => result.attempts > 1)).toBe(true);

    const { metadata } = await reader.catalog.loadTable(id);
    const committedIds = commits.map(({ result }) => result.snapshot.snapshotId);
    expect(new Set(committedIds).size).toBe(committedIds.length);
    expect(metadata.snapshots).toHaveLength(WRITERS * ROUNDS);
    const tableIds = metadata.snapshots.map((snapshot) => snapshot.snapshotId);
    expect(new Set(tableIds).size).toBe(tableIds.length);

    // One chain from the current snapshot back to the first, holding every commit, sequence numbers 1..40.
    const chain = [...ancestorsOf(metadata, metadata.currentSnapshotId)];
    expect(chain.map((snapshot) => snapshot.snapshotId).sort()).toEqual([...committedIds].sort());
    expect(chain.map((snapshot) => snapshot.sequenceNumber).reverse()).toEqual(chain.map((_, index) => BigInt(index + 1)));
    expect(chain.at(-1)?.parentSnapshotId).toBeUndefined();
    for (const snapshot of chain) expect(await reader.io.exists(snapshot.manifestList)).toBe(true);

    const live = await liveDataFiles(reader.io, metadata);
    const livePaths = new Set(live.map((file) => file.filePath));
    const written = commits.flatMap(({ files }) => files.map((file) => file.filePath));
    expect(livePaths.size).toBe(live.length);
    expect([...livePaths].sort()).toEqual([...written].sort());

    const expectedRows = WRITERS * ROUNDS * ROWS_PER_COMMIT;
    const current = chain[0];
    expect(current?.summary['total-records']).toBe(String(expectedRows));
    expect(current?.summary['total-data-files']).toBe(String(written.length));
    const counted = await countRows(reader.io, reader.session, live);
    expect(counted).toEqual({ n: expectedRows, ids: expectedRows, lo: 0, hi: expectedRows - 1 });
  }, 300_000);
});
