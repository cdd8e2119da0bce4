/**
 * The partitioned writer's file sizing and edges: partitions above the target size rolled into
 * several files (same tuple, same Parquet schema and field ids), the open-file cap taking effect
 * and DuckDB's setting restored, void-only and unpartitioned specs, an object store without
 * local paths, and nothing left behind when the query fails.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { FlowError } from '../../../src/errors.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';
import { expectRolledAtTarget } from './rolled-file-bound.js';

const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'payload', required: false, type: primitive('string') },
]);
const SCHEMA: Schema = { schemaId: 0, identifierFieldIds: [], fields };
const BY_REGION: PartitionSpec = { specId: 1, fields: [{ name: 'region', transform: 'identity', sourceId: 2, fieldId: 1000 }] };
const ROWS_SQL = (rows: number, regions: number) =>
  `SELECT range::BIGINT AS id, 'r' || (hash(range) % ${regions}) AS region, md5(range::VARCHAR) || md5((range * 7)::VARCHAR) AS payload FROM range(${rows})`;

let work: string;
let session: DuckDbSession;
const io = new LocalFileIO();

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-partitioned-roll-'));
  session = await DuckDbSession.open();
});

afterEach(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

const write = (query: string, spec: PartitionSpec, properties: Record<string, string> = {}, target: FileIO = io) =>
  writePartitionedDataFiles({ session, query, schema: SCHEMA, spec, dataLocation: toFileUri(join(work, 'data')), io: target, properties, writerName: 'test' });

const local = (file: DataFile): string => new URL(file.filePath).pathname;

async function rowsByFile(files: readonly DataFile[]): Promise<Map<string, { n: number; regions: string[] }>> {
  const rows = await session.queryJson(
    `SELECT filename, count(*)::INTEGER AS n, list(DISTINCT region ORDER BY region) AS regions
     FROM read_parquet([${files.map((f) => quoteLiteral(local(f))).join(', ')}], hive_partitioning = false, filename = true) GROUP BY filename`,
  );
  return new Map(rows.map((row) => [String(row['filename']), { n: Number(row['n']), regions: row['regions'] as string[] }]));
}

describe('writePartitionedDataFiles sizing', () => {
  it('rolls a partition above write.target-file-size-bytes into several files of that partition', async () => {
    const target = 2 * 1024 * 1024;
    const rows = 600_000;
    const files = await write(
      `SELECT range::BIGINT AS id, 'r' || (range % 2) AS region, md5(range::VARCHAR) AS payload FROM range(${rows})`,
      BY_REGION,
      { 'write.target-file-size-bytes': String(target) },
    );
    const perRegion = new Map<string, DataFile[]>();
    for (const file of files) perRegion.set(String(file.partition.get(1000)), [...(perRegion.get(String(file.partition.get(1000))) ?? []), file]);
    expect([...perRegion.keys()].sort()).toEqual(['r0', 'r1']);
    const read = await rowsByFile(files);
    for (const [region, group] of perRegion) {
      expect(group.length).toBeGreaterThan(1);
      for (const file of group) {
        expect(file.filePath).toContain(`/data/region=${region}/`);
        expect(read.get(local(file))).toEqual({ n: Number(file.recordCount), regions: [region] });
      }
      await expectRolledAtTarget(session, group, target);
    }
    expect(files.reduce((n, f) => n + f.recordCount, 0n)).toBe(BigInt(rows));
    const schemas = await session.queryJson(
      `SELECT DISTINCT name, field_id::INTEGER AS id FROM parquet_schema([${files.map((f) => quoteLiteral(local(f))).join(', ')}]) WHERE name <> 'duckdb_schema' ORDER BY id`,
    );
    expect(schemas).toEqual(SCHEMA.fields.map((f) => ({ name: f.name, id: f.id })));
    const leftovers = readdirSync(join(work, 'data'), { recursive: true }).map(String).filter((p) => p.includes('.thund-staging'));
    expect(leftovers).toEqual([]);
  });

  it('caps open partition files at write.partitioned.max-open-files and restores DuckDB’s setting', async () => {
    // A low flush threshold makes DuckDB write (and so open files) early, as large inputs do.
    await session.run('SET partitioned_write_flush_threshold = 2000');
    await session.run('SET partitioned_write_max_open_files = 7');
    const capped = await write(ROWS_SQL(60_000, 20), BY_REGION, { 'write.partitioned.max-open-files': '2', 'write.distribution-mode': 'none' });
    const [setting] = await session.queryJson(`SELECT current_setting('partitioned_write_max_open_files')::INTEGER AS v`);
    expect(setting).toEqual({ v: 7 });
    // Beyond the cap DuckDB closes a file and starts another for the same partition later.
    expect(capped.length).toBeGreaterThan(40);
    const read = await rowsByFile(capped);
    for (const file of capped) expect(read.get(local(file))).toEqual({ n: Number(file.recordCount), regions: [file.partition.get(1000)] });
    expect(capped.reduce((n, f) => n + f.recordCount, 0n)).toBe(60_000n);
    rmSync(join(work, 'data'), { recursive: true });
    const open = await write(ROWS_SQL(60_000, 20), BY_REGION, { 'write.partitioned.max-open-files': '100', 'write.distribution-mode': 'none' });
    expect(open.length).toBe(20);
  });

  it('clusters rows by partition by default (hash distribution), so the cap does not split partitions', async () => {
    await session.run('SET partitioned_write_flush_threshold = 2000');
    const clustered = await write(ROWS_SQL(60_000, 20), BY_REGION, { 'write.partitioned.max-open-files': '2' });
    expect(clustered.length).toBeLessThanOrEqual(25);
    const read = await rowsByFile(clustered);
    for (const file of clustered) expect(read.get(local(file))).toEqual({ n: Number(file.recordCount), regions: [file.partition.get(1000)] });
    expect(clustered.reduce((n, f) => n + f.recordCount, 0n)).toBe(60_000n);
    await expect(write(ROWS_SQL(10, 2), BY_REGION, { 'write.distribution-mode': 'random' })).rejects.toThrow(/write\.distribution-mode/);
  });

  it('refuses a max-open-files that is not a positive number, naming the property', async () => {
    await expect(write(ROWS_SQL(10, 2), BY_REGION, { 'write.partitioned.max-open-files': '0' })).rejects.toThrow(/write\.partitioned\.max-open-files/);
  });
});

describe('writePartitionedDataFiles edges', () => {
  it('writes a void-only spec into the one all-null partition', async () => {
    const spec: PartitionSpec = { specId: 3, fields: [{ name: 'region_null', transform: 'void', sourceId: 2, fieldId: 1000 }] };
    const files = await write(ROWS_SQL(1000, 3), spec);
    expect(files.length).toBe(1);
    expect(files[0]!.partition).toEqual(new Map([[1000, null]]));
    expect(files[0]!.specId).toBe(3);
    expect(files[0]!.filePath).toMatch(/\/data\/region_null=null\/[^/]+\.parquet$/);
    expect(existsSync(local(files[0]!))).toBe(true);
  });

  it('uses the unpartitioned layout for a spec without fields', async () => {
    const files = await write(ROWS_SQL(1000, 3), { specId: 0, fields: [] });
    expect(files.map((f) => [f.specId, f.partition.size, f.recordCount])).toEqual([[0, 0, 1000n]]);
    expect(files[0]!.filePath).toMatch(/\/data\/[^/=]+\.parquet$/);
  });

  it('uploads each file to its partition path on a FileIO without local paths', async () => {
    const uploads: string[] = [];
    const remote: FileIO = {
      read: (location) => io.read(location),
      exists: (location) => io.exists(location),
      length: (location) => io.length(location),
      delete: (location) => io.delete(location),
      writeNew: (location, bytes) => io.writeNew(location, bytes),
      writeNewFromFile: async (location, stagedPath) => {
        uploads.push(location);
        await io.writeNewFromFile(location, stagedPath);
      },
    };
    const files = await write(ROWS_SQL(5000, 3), BY_REGION, {}, remote);
    expect(uploads.sort()).toEqual(files.map((f) => f.filePath).sort());
    expect(files.map((f) => /region=(r\d)\//.exec(f.filePath)?.[1]).sort()).toEqual(['r0', 'r1', 'r2']);
    expect((await rowsByFile(files)).size).toBe(3);
  });

  it('writes no data file for an empty result', async () => {
    expect(await write(`${ROWS_SQL(10, 2)} WHERE false`, BY_REGION)).toEqual([]);
    expect(readdirSync(work, { recursive: true }).map(String).filter((p) => p.endsWith('.parquet'))).toEqual([]);
  });

  it('leaves no file behind when the query fails while writing', async () => {
    const failing = `SELECT range::BIGINT AS id, 'r' || (range % 4) AS region,
                            CASE WHEN range > 150000 THEN error('boom at ' || range) ELSE 'ok' END AS payload FROM range(200000)`;
    await expect(write(failing, BY_REGION)).rejects.toBeInstanceOf(FlowError);
    expect(readdirSync(work, { recursive: true }).map(String).filter((p) => p.endsWith('.parquet'))).toEqual([]);
  });
});
