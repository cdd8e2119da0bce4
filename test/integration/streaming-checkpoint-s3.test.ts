/**
 * A streaming flow whose table lives on S3 (MinIO), in the SQLite catalog and in the Apache REST
 * catalog fixture: the checkpoint folders go through the S3 FileIO under the table's location, a
 * second run resumes from the checkpoint its last snapshot points to, and only the newest
 * checkpoint is left once its commit landed. An SCD type 2 flow's checkpoints of changes chain
 * inside their whole checkpoint's folder on S3, replay in the next run, and go with it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Bucket, testS3FileIOOptions } from '../stack/s3-env.js';
import { StreamingPipeline } from '../unit/engine/graph/streaming/streaming-fixture.js';
import { acceptedRowsSql, wordFile } from '../unit/engine/graph/streaming/stream-data.js';
import { SCD2_CHANGES_SPEC, SCD2_CHANGE_FILES, SCD2_HISTORY_SQL, scd2ChangeFile } from '../unit/engine/graph/streaming/scd2-change-files.js';
import { checkpointFolderOf } from '../../src/table/checkpoint-layout.js';

const SPEC = `pipeline: s3_stream
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.word_windows:
    kind: streaming_table
    watermark: { column: ts, delay: 2 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT time_bucket(INTERVAL '5 minutes', ts) AS window_start, word, count(*) AS n FROM STREAM(words) GROUP BY ALL
`;

let io: S3FileIO;
let pipeline: StreamingPipeline;
let rest: RestCatalog | undefined;
let table: string;
afterEach(async () => {
  await pipeline.close();
  await rest?.close();
  rest = undefined;
  io.close();
});

describe.each(['sql', 'rest'])('%s catalog', (kind) => {
  beforeEach(async () => {
    io = new S3FileIO(testS3FileIOOptions());
    const root = `s3://${testS3Bucket()}/it-streaming/${randomUUID()}`;
    if (kind === 'rest') rest = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io });
    const namespace = `stream_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    pipeline = new StreamingPipeline(SPEC.replaceAll('lake.', `${namespace}.`), { io, warehouse: () => root, ...(rest === undefined ? {} : { catalog: rest }) });
    table = `${namespace}.word_windows`;
  });

  it('checkpoints to S3 and resumes from it in the next run', async () => {
    for (let k = 0; k < 3; k++) await pipeline.addFile(wordFile(k));
    await pipeline.run(table);
    for (let k = 3; k < 5; k++) await pipeline.addFile(wordFile(k));
    const second = await pipeline.run(table);
    expect(second.batches.length).toBe(2);

    const accepted = acceptedRowsSql(`read_parquet('${pipeline.work}/data/*.parquet', filename = true)`, '5 minutes', '2 minutes');
    const expected = await pipeline.oracle(
      `${accepted} SELECT strftime(ws, '%H:%M'), word, count(*)::INTEGER FROM accepted
       WHERE ws + INTERVAL 5 MINUTE <= (SELECT max(ts) FROM input) - INTERVAL 2 MINUTE GROUP BY ALL ORDER BY ALL`,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(await pipeline.rows(table, "SELECT strftime(window_start, '%H:%M'), word, n::INTEGER FROM {t} ORDER BY ALL")).toEqual(expected);

    const [namespace, name] = table.split('.') as [string, string];
    const { metadata } = await pipeline.catalog.loadTable({ namespace: [namespace], name });
    const pointer = (await pipeline.snapshots(table)).at(-1)?.[`thund.checkpoint.${table}`];
    expect(pointer?.startsWith(`${metadata.location}/thund-checkpoints/${table}/`)).toBe(true);
    const left = new Set<string>();
    for await (const object of io.list(`${metadata.location}/thund-checkpoints/`)) left.add(object.location.slice(0, object.location.lastIndexOf('/')));
    expect([...left]).toEqual([pointer]);
  });

  it('chains checkpoints of an SCD type 2 flow’s changes on S3, replays them in the next run, and removes the chain once a whole checkpoint replaces it', async () => {
    const local = new StreamingPipeline(SCD2_CHANGES_SPEC);
    let expected: unknown[][];
    try {
      for (let k = 0; k < SCD2_CHANGE_FILES; k++) await local.addFile(scd2ChangeFile(k));
      await local.run('history');
      expected = await local.rows('lake.customers_history', SCD2_HISTORY_SQL);
    } finally {
      await local.close();
    }
    await pipeline.close();
    const root = `s3://${testS3Bucket()}/it-streaming/${randomUUID()}`;
    const namespace = `scd2_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    pipeline = new StreamingPipeline(SCD2_CHANGES_SPEC.replaceAll('lake.', `${namespace}.`), { io, warehouse: () => root, ...(rest === undefined ? {} : { catalog: rest }) });
    const history = `${namespace}.customers_history`;
    const pointer = async (): Promise<string> => (await pipeline.snapshots(history)).at(-1)?.['thund.checkpoint.history'] as string;
    const folders = async (): Promise<string[]> => {
      const [ns, name] = history.split('.') as [string, string];
      const { metadata } = await pipeline.catalog.loadTable({ namespace: [ns], name });
      const found = new Set<string>();
      for await (const object of io.list(`${metadata.location}/thund-checkpoints/`)) found.add(object.location.slice(0, object.location.lastIndexOf('/')));
      return [...found].sort();
    };

    for (let k = 0; k < 3; k++) await pipeline.addFile(scd2ChangeFile(k));
    await pipeline.run('history');
    const changed = await pointer();
    const whole = checkpointFolderOf(changed);
    expect(whole).not.toBe(changed);
    expect(await folders()).toEqual(expect.arrayContaining([whole, changed]));

    for (let k = 3; k < SCD2_CHANGE_FILES; k++) await pipeline.addFile(scd2ChangeFile(k));
    expect((await pipeline.run('history')).batches.length).toBe(SCD2_CHANGE_FILES - 3);
    const last = await pointer();
    expect(checkpointFolderOf(last)).toBe(last);
    expect(await folders()).toEqual([last]);
    expect(await pipeline.rows(history, SCD2_HISTORY_SQL)).toEqual(expected);
  });
});
