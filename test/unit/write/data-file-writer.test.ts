/**
 * The Parquet data file writer: files rolled at the table's target size, every row once,
 * metrics per file, and nothing left behind when the query or an upload fails midway. A FileIO
 * without local paths (an object store) gets each staged file through writeNewFromFile.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { FlowError, StorageError } from '../../../src/errors.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { expectRolledAtTarget } from './rolled-file-bound.js';

let work: string;
let session: DuckDbSession;
const io = new LocalFileIO();
const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'payload', required: false, type: primitive('string') },
]);
const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields };

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-writer-'));
  session = await DuckDbSession.open();
});

afterEach(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

const write = (query: string, properties: Record<string, string> = {}) =>
  writeDataFiles({ session, query, schema, specId: 0, dataLocation: toFileUri(join(work, 'data')), io, properties, writerName: 'test' });

describe('writeDataFiles', () => {
  it('rolls files at write.target-file-size-bytes and writes every row exactly once', async () => {
    const rows = 600_000;
    const target = 2 * 1024 * 1024;
    const files = await write(`SELECT range::BIGINT AS id, md5(range::VARCHAR) AS payload FROM range(${rows})`, {
      'write.target-file-size-bytes': String(target),
    });
    expect(files.length).toBeGreaterThan(3);
    expect(files.reduce((n, f) => n + f.recordCount, 0n)).toBe(BigInt(rows));
    await expectRolledAtTarget(session, files, target);
    expect(readdirSync(join(work, 'data')).sort()).toEqual(files.map((f) => f.filePath.split('/').pop()).sort());

    const paths = files.map((f) => quoteLiteral(new URL(f.filePath).pathname)).join(', ');
    const [check] = await session.queryJson(`SELECT count(*) AS n, count(DISTINCT id) AS d, sum(id) AS s FROM read_parquet([${paths}])`);
    expect(check).toEqual({ n: String(rows), d: String(rows), s: String((rows * (rows - 1)) / 2) });

    for (const file of files) {
      const [bounds] = await session.queryJson(`SELECT min(id) AS lo, max(id) AS hi FROM read_parquet(${quoteLiteral(new URL(file.filePath).pathname)})`);
      expect(decodeSingleValue(primitive('long'), file.lowerBounds?.get(1) ?? new Uint8Array())).toBe(BigInt(String(bounds?.['lo'])));
      expect(decodeSingleValue(primitive('long'), file.upperBounds?.get(1) ?? new Uint8Array())).toBe(BigInt(String(bounds?.['hi'])));
      expect(file.valueCounts?.get(2)).toBe(file.recordCount);
    }
  });

  it('leaves no file behind when the query fails while writing', async () => {
    const failing = `SELECT range::BIGINT AS id, CASE WHEN range > 300000 THEN error('boom at ' || range) ELSE 'ok' END AS payload FROM range(400000)`;
    await expect(write(failing, { 'write.target-file-size-bytes': '65536' })).rejects.toBeInstanceOf(FlowError);
    expect(readdirSync(work).flatMap((entry) => (entry === 'data' ? readdirSync(join(work, 'data')) : [entry]))).toEqual([]);
  });

  it('writes no data file for an empty result', async () => {
    expect(await write('SELECT 1::BIGINT AS id, NULL::VARCHAR AS payload WHERE false')).toEqual([]);
  });

  it('rejects a bad compression codec by naming the property', async () => {
    await expect(write('SELECT 1::BIGINT AS id, 1::VARCHAR AS payload', { 'write.parquet.compression-codec': 'lzma' })).rejects.toThrow(
      /write\.parquet\.compression-codec/,
    );
  });

  describe('on a FileIO without local paths', () => {
    /** LocalFileIO seen as an object store: no localPathFor; records what the writer called. */
    function remoteLike(options: { streaming: boolean; failOnUpload?: number }) {
      const local = new LocalFileIO();
      const calls: { method: string; location: string; stagedPath?: string }[] = [];
      const remote: FileIO = {
        read: (location) => local.read(location),
        exists: (location) => local.exists(location),
        length: (location) => local.length(location),
        delete: async (location) => {
          calls.push({ method: 'delete', location });
          await local.delete(location);
        },
        writeNew: async (location, bytes) => {
          calls.push({ method: 'writeNew', location });
          await local.writeNew(location, bytes);
        },
      };
      if (options.streaming) {
        remote.writeNewFromFile = async (location, stagedPath) => {
          const uploads = calls.filter((call) => call.method === 'writeNewFromFile').length;
          calls.push({ method: 'writeNewFromFile', location, stagedPath });
          if (uploads + 1 === options.failOnUpload) throw new StorageError(`Cannot write ${location}: injected`);
          await local.writeNewFromFile(location, stagedPath);
        };
      }
      return { remote, calls };
    }

    const writeTo = (target: FileIO, properties: Record<string, string>) =>
      writeDataFiles({
        session,
        query: 'SELECT range::BIGINT AS id, md5(range::VARCHAR) AS payload FROM range(300000)',
        schema,
        specId: 0,
        dataLocation: toFileUri(join(work, 'data')),
        io: target,
        properties,
        writerName: 'test',
      });

    it('hands each staged file to writeNewFromFile, never reading it into a buffer', async () => {
      const { remote, calls } = remoteLike({ streaming: true });
      const files = await writeTo(remote, { 'write.target-file-size-bytes': String(1024 * 1024) });
      expect(files.length).toBeGreaterThan(1);
      expect(calls.map((call) => call.method)).toEqual(files.map(() => 'writeNewFromFile'));
      expect(calls.map((call) => call.location)).toEqual(files.map((file) => file.filePath));
      // The staged copies are gone once the write returns.
      for (const call of calls) expect(existsSync(call.stagedPath!)).toBe(false);
      const paths = files.map((f) => quoteLiteral(new URL(f.filePath).pathname)).join(', ');
      const [check] = await session.queryJson(`SELECT count(*) AS n, sum(id) AS s FROM read_parquet([${paths}])`);
      expect(check).toEqual({ n: '300000', s: String((300000 * 299999) / 2) });
    });

    it('falls back to writeNew when the FileIO cannot stream', async () => {
      const { remote, calls } = remoteLike({ streaming: false });
      const files = await writeTo(remote, {});
      expect(files).toHaveLength(1);
      expect(calls).toEqual([{ method: 'writeNew', location: files[0]!.filePath }]);
      expect(await remote.length(files[0]!.filePath)).toBe(files[0]!.fileSizeInBytes);
    });

    it('removes the files already uploaded when a later upload fails', async () => {
      const { remote, calls } = remoteLike({ streaming: true, failOnUpload: 3 });
      await expect(writeTo(remote, { 'write.target-file-size-bytes': String(1024 * 1024) })).rejects.toThrow(/injected/);
      const uploaded = calls.filter((call) => call.method === 'writeNewFromFile').map((call) => call.location);
      expect(uploaded).toHaveLength(3);
      expect(calls.filter((call) => call.method === 'delete').map((call) => call.location).sort()).toEqual(uploaded.slice(0, 2).sort());
      expect(readdirSync(join(work, 'data'))).toEqual([]);
      for (const call of calls) if (call.stagedPath !== undefined) expect(existsSync(call.stagedPath)).toBe(false);
    });
  });
});
