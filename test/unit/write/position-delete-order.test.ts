/**
 * The position delete writer's row order (spec §6.1): file_path as UTF-8 bytes, then pos, for
 * paths of any length and characters outside the Basic Multilingual Plane (where UTF-16 order,
 * JavaScript's default, differs from UTF-8 byte order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { writePositionDeletes } from '../../../src/write/position-delete-writer.js';

let work: string;
let session: DuckDbSession;
const io = new LocalFileIO();

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-position-deletes-'));
  session = await DuckDbSession.open();
});

afterEach(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

it('sorts the rows by file_path bytes, then pos', async () => {
  const base = toFileUri(join(work, 'data'));
  const paths = [`${base}/b.parquet`, `${base}/a\u{1F600}.parquet`, `${base}/a\uFFFF.parquet`, `${base}/a.parquet`, `${base}/ab.parquet`];
  const rows = paths.flatMap((path, i) => [7, 2, 11, i].map((pos) => `(${quoteLiteral(path)}, ${pos})`));
  await session.run(`CREATE TABLE positions AS SELECT * FROM (VALUES ${rows.join(', ')}) v(file_path, pos)`);
  const [file] = await writePositionDeletes({
    session,
    positions: 'positions',
    groups: [{ specId: 0, partition: new Map(), dataFilePaths: paths }],
    dataLocation: base,
    io,
    properties: {},
    writerName: 'test',
  });
  const local = io.localPathFor(file!.filePath);
  const written = await session.queryJson(
    `SELECT file_path, pos::INTEGER AS pos FROM read_parquet(${quoteLiteral(local!)}, file_row_number = true) ORDER BY file_row_number`,
  );
  const sorted = await session.queryJson(`SELECT file_path, pos::INTEGER AS pos FROM positions ORDER BY file_path, pos`);
  expect(written).toHaveLength(paths.length * 4);
  expect(written).toEqual(sorted);
});

it("writes each group's own rows, with its paths as the file_path bounds whatever their length", async () => {
  const base = toFileUri(join(work, 'data'));
  const long = (name: string): string => `${base}/${'p'.repeat(300)}/${name}.parquet`;
  const first = [long('b'), long('a')];
  const second = [long('c')];
  const rows = [...first, ...second, long('elsewhere')].flatMap((path) => [3, 1].map((pos) => `(${quoteLiteral(path)}, ${pos})`));
  await session.run(`CREATE TABLE positions AS SELECT * FROM (VALUES ${rows.join(', ')}) v(file_path, pos)`);
  const files = await writePositionDeletes({
    session,
    positions: 'positions',
    groups: [
      { specId: 0, partition: new Map(), dataFilePaths: first },
      { specId: 0, partition: new Map(), dataFilePaths: second },
    ],
    dataLocation: base,
    io,
    properties: {},
    writerName: 'test',
  });
  const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
  const [one, two] = files;
  expect(files).toHaveLength(2);
  expect([one!.recordCount, two!.recordCount]).toEqual([4n, 2n]);
  expect([text(one!.lowerBounds?.get(2147483546)), text(one!.upperBounds?.get(2147483546))]).toEqual([long('a'), long('b')]);
  expect([text(two!.lowerBounds?.get(2147483546)), text(two!.upperBounds?.get(2147483546))]).toEqual([long('c'), long('c')]);
  expect(two!.referencedDataFile).toBe(long('c'));
  const written = await session.queryJson(`SELECT file_path, pos::INTEGER AS pos FROM read_parquet(${quoteLiteral(io.localPathFor(one!.filePath)!)}) ORDER BY ALL`);
  expect(written).toEqual([1, 3].map((pos) => ({ file_path: long('a'), pos })).concat([1, 3].map((pos) => ({ file_path: long('b'), pos }))));
});
