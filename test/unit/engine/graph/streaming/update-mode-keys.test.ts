/**
 * Update output mode upserts by the group keys from its first batch on: the batch that creates
 * the table obeys the key rules later batches obey (a null group key fails it, nothing is
 * created), and a column another writer dropped comes back as append brings it back.
 */
import { afterEach, expect, it } from 'vitest';
import { currentSchema } from '../../../../../src/iceberg/snapshot-ancestry.js';
import { schemaUpdate } from '../../../../../src/iceberg/schema-update.js';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordsPipeline } from './words-pipeline.js';

const spec = (sql: string): string =>
  wordsPipeline(
    'update_keys',
    `  lake.word_totals:
    kind: streaming_table
    output_mode: update
    sql: ${sql}
`,
  );

let pipeline: StreamingPipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  pipeline = undefined;
});

it('refuses a null group key on the batch that creates the table, naming flow and table, and creates nothing', async () => {
  pipeline = new StreamingPipeline(spec('SELECT word, count(*) AS n FROM STREAM(words) GROUP BY word'));
  await pipeline.addFile("SELECT * FROM (VALUES ('alpha'), (NULL), ('beta')) t(word)");
  const error = await pipeline.run('lake.word_totals').catch((e: unknown) => e);
  expect(String(error)).toMatch(/null key/);
  expect(String(error)).toContain('"lake.word_totals"');
  expect(String(error)).toContain('lake.word_totals');
  expect(await pipeline.catalog.tableExists({ namespace: ['lake'], name: 'word_totals' })).toBe(false);
});

it('takes a column another writer dropped back as a new column, as append does', async () => {
  const table = { namespace: ['lake'], name: 'word_totals' };
  pipeline = new StreamingPipeline(spec('SELECT word, count(*) AS n FROM STREAM(words) GROUP BY word'));
  await pipeline.addFile("SELECT * FROM (VALUES ('alpha'), ('alpha'), ('beta')) t(word)");
  await pipeline.run('lake.word_totals');
  // As Spark's ALTER TABLE … DROP COLUMN would commit it.
  const base = (await pipeline.catalog.loadTable(table)).metadata;
  const drop = schemaUpdate(base, currentSchema(base).fields.filter((field) => field.name !== 'n'));
  await pipeline.catalog.commitTable(table, [{ type: 'assert-table-uuid', uuid: base.tableUuid }, ...drop.requirements], drop.updates);
  await pipeline.addFile("SELECT * FROM (VALUES ('alpha'), ('gamma')) t(word)");
  await pipeline.run('lake.word_totals');
  expect(currentSchema((await pipeline.catalog.loadTable(table)).metadata).fields.map((field) => field.name)).toEqual(['word', 'n']);
  expect(await pipeline.rows('lake.word_totals', 'SELECT word, n::INTEGER FROM {t} ORDER BY word')).toEqual([
    ['alpha', 3],
    ['beta', null],
    ['gamma', 1],
  ]);
});
