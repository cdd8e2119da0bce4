import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { FlowError } from '../../../src/errors.js';
import { primitive, type NestedField } from '../../../src/iceberg/types.js';
import { runBatchFlow, writeBatchThroughViews, type BatchFlowSettings } from '../../../src/engine/graph/streaming/batch-flow.js';
import type { JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { decodedRecord, rawRecord } from '../kafka/records.js';

const FIELDS: NestedField[] = [
  { id: 1, name: '_kafka_offset', required: false, type: primitive('long') },
  { id: 2, name: '_kafka_key', required: false, type: primitive('string') },
  { id: 3, name: 'id', required: false, type: primitive('long') },
  { id: 4, name: 'name', required: false, type: primitive('string') },
];

let session: DuckDbSession;
let tempDir: string;
let settings: BatchFlowSettings;

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  tempDir = await mkdtemp(join(tmpdir(), 'thund-views-'));
  settings = { session, tempDir, view: 'kafka_records', sql: undefined };
});

afterAll(async () => {
  session.close();
  await rm(tempDir, { recursive: true, force: true });
});

const batch = (values: string[]): JsonRecord[] =>
  decodeRecords(new JsonDecoder(), values.map((v, i) => rawRecord(v, { offset: BigInt(i), key: Buffer.from(`k-${i}`) }))).records as JsonRecord[];

/** A writer that reads the query back instead of writing files. */
function capture(): { rows: Array<Record<string, unknown>>; write: (query: string) => Promise<DataFile[]> } {
  const rows: Array<Record<string, unknown>> = [];
  return {
    rows,
    write: async (query) => {
      rows.push(...(await session.queryJson(`SELECT * FROM (${query}) ORDER BY _kafka_offset`)));
      return [{ recordCount: BigInt(rows.length) } as DataFile];
    },
  };
}

describe('writing a batch straight from its staged file', () => {
  it('gives the writer the table’s columns, typed, for fetched JSON bytes and decoded values alike', async () => {
    const records = batch(['{"id": 9007199254740993, "name": "café", "extra": 1}', '{"name": null}', '{"id":"12"}']);
    const decoded = decodedRecord(records[1] as JsonRecord, { name: 'zé' }, { offset: 3n });
    const out = capture();
    const result = await writeBatchThroughViews(settings, [...records, decoded], FIELDS, out.write);
    expect(result?.rows).toBe(4);
    expect(out.rows).toEqual([
      // BIGINT comes back as text: the int64 id keeps every digit.
      { _kafka_offset: '0', _kafka_key: 'k-0', id: '9007199254740993', name: 'café' },
      { _kafka_offset: '1', _kafka_key: 'k-1', id: null, name: null },
      { _kafka_offset: '2', _kafka_key: 'k-2', id: '12', name: null },
      { _kafka_offset: '3', _kafka_key: 'k-1', id: null, name: 'zé' },
    ]);
    expect(await readdir(tempDir)).toEqual([]);
  });

  it('gives up on a value that does not cast, and the slow way then finds that record alone', async () => {
    const records = batch(['{"id": 1}', '{"id": "not a number"}', '{"id": 3}']);
    const out = capture();
    expect(await writeBatchThroughViews(settings, records, FIELDS, out.write)).toBeUndefined();
    expect(await readdir(tempDir)).toEqual([]);
    const slow = await runBatchFlow(settings, records, FIELDS);
    expect(slow.rows).toBe(2);
    expect(slow.failures.map((f) => [f.record.offset, f.record.raw?.toString('utf8')])).toEqual([[1n, '{"id": "not a number"}']]);
  });

  it('stops on a batch DuckDB has no memory for instead of splitting it record by record', async () => {
    const small = await DuckDbSession.open({ threads: 1, memoryLimit: '1MB' });
    try {
      const records = batch(Array.from({ length: 2_000 }, (_, i) => `{"id": ${i}, "name": "${'n'.repeat(200)}"}`));
      const failure = await runBatchFlow({ ...settings, session: small }, records, FIELDS).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FlowError);
      expect((failure as FlowError).message).toMatch(/could not stage the batch of 2000 records: Out of Memory/);
    } finally {
      small.close();
    }
  });
});
