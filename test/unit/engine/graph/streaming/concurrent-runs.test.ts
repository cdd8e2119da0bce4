/**
 * Two runs of one streaming flow at once (two `thund run`s of a pipeline): run A is held at its
 * first commit while run B lands the same new files. When A's commit goes ahead, the checkpoint
 * its batch was planned from is no longer the table's, so A drops the batch and plans again from
 * the table's positions: every input row lands once, and a stateful flow's totals are the
 * oracle's. Before the fence, A's commit was retried on top of B's and landed the files twice.
 */
import { afterEach, expect, it } from 'vitest';
import type { Catalog } from '../../../../../catalog/catalog.js';
import { SCD2_CHANGES_SPEC } from './scd2-change-files.js';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordsPipeline } from './words-pipeline.js';

let pipeline: StreamingPipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  pipeline = undefined;
});

/** The catalog, with its first commit held until `release()`; `reached` resolves when it is. */
function holdFirstCommit(catalog: Catalog): { catalog: Catalog; reached: Promise<void>; release: () => void } {
  let reachedCommit!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reachedCommit = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const wrapped = new Proxy(catalog, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'commitTable') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<Catalog['commitTable']>) => {
        if (!held) {
          held = true;
          reachedCommit();
          await gate;
        }
        return target.commitTable(...args);
      };
    },
  });
  return { catalog: wrapped, reached, release };
}

/** Runs A (held at its first commit) and B (to the end) over the same new files; A's outcome. */
async function raceTwoRuns(current: StreamingPipeline, flow: string): Promise<{ batchesA: number; batchesB: number }> {
  const held = holdFirstCommit(current.catalog);
  const runA = current.run(flow, { catalog: held.catalog });
  await held.reached;
  const runB = await current.run(flow);
  held.release();
  const outcomeA = await runA;
  return { batchesA: outcomeA.batches.length, batchesB: runB.batches.length };
}

const words = (list: readonly string[]): string => `SELECT * FROM (VALUES ${list.map((w) => `('${w}')`).join(', ')}) t(word)`;

it.each([
  { when: 'the table exists', createFirst: true },
  { when: 'both runs create the table', createFirst: false },
])('a stateless flow when $when: the run that commits second plans again and lands nothing twice', async ({ createFirst }) => {
  pipeline = new StreamingPipeline(
    wordsPipeline(
      'concurrent_append',
      `  lake.words_seen:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT word FROM STREAM(words)
`,
    ),
  );
  if (createFirst) {
    await pipeline.addFile(words(['a', 'b']));
    await pipeline.run('lake.words_seen');
  }
  for (const list of [['c', 'd'], ['e'], ['f', 'g', 'h']]) await pipeline.addFile(words(list));

  const { batchesA, batchesB } = await raceTwoRuns(pipeline, 'lake.words_seen');

  expect(batchesB).toBe(3);
  expect(batchesA).toBe(0);
  expect(await pipeline.rows('lake.words_seen', 'SELECT word FROM {t} ORDER BY word')).toEqual(await pipeline.oracle('SELECT word FROM {all} ORDER BY word'));
});

it('a windowless aggregation in update mode: the totals are the oracle’s, from the state the other run committed', async () => {
  pipeline = new StreamingPipeline(
    wordsPipeline(
      'concurrent_update',
      `  lake.word_totals:
    kind: streaming_table
    output_mode: update
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT word, count(*) AS n FROM STREAM(words) GROUP BY word
`,
    ),
  );
  await pipeline.addFile(words(['a', 'b', 'a']));
  await pipeline.run('lake.word_totals');
  await pipeline.addFile(words(['a', 'c']));
  await pipeline.addFile(words(['b', 'c', 'c']));

  await raceTwoRuns(pipeline, 'lake.word_totals');
  await pipeline.addFile(words(['a']));
  await pipeline.run('lake.word_totals');

  const expected = await pipeline.oracle('SELECT word, count(*)::INTEGER FROM {all} GROUP BY word ORDER BY word');
  expect(await pipeline.rows('lake.word_totals', 'SELECT word, n::INTEGER FROM {t} ORDER BY word')).toEqual(expected);
});

it('an SCD type 2 apply_changes flow: the history is the one a single run lands', async () => {
  const scd2 = (name: string): string => SCD2_CHANGES_SPEC.replace('pipeline: history', `pipeline: ${name}`);
  const change = (k: number): string =>
    `SELECT (i % 4)::BIGINT AS id, 'name-' || ${k} || '-' || i AS name, CASE WHEN (i + ${k}) % 5 = 0 THEN 'd' ELSE 'u' END AS op,
            (i * 10 + ${k})::BIGINT AS seq FROM range(0, 8) t(i)`;
  const history = 'SELECT id, name, __START_AT, __END_AT FROM {t} ORDER BY id, __START_AT';

  const reference = new StreamingPipeline(scd2('history_reference'));
  try {
    for (let k = 0; k < 3; k++) await reference.addFile(change(k));
    await reference.run('history');
    pipeline = new StreamingPipeline(scd2('history_raced'));
    await pipeline.addFile(change(0));
    await pipeline.run('history');
    for (let k = 1; k < 3; k++) await pipeline.addFile(change(k));

    const { batchesA, batchesB } = await raceTwoRuns(pipeline, 'history');

    expect([batchesA, batchesB]).toEqual([0, 2]);
    const expected = await reference.rows('lake.customers_history', history);
    expect(expected.length).toBeGreaterThan(4);
    expect(await pipeline.rows('lake.customers_history', history)).toEqual(expected);
  } finally {
    await reference.close();
  }
});
