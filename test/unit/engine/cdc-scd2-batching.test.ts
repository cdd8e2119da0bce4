/**
 * The SCD2 invariant: however the events are split into batches and ordered (late events,
 * redeliveries), the history is the one all events in one batch give. Random event streams with
 * few distinct values, so upserts often repeat the current values, and many deletes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import type { ApplyChangesOptionsInput } from '../../../src/engine/operators/cdc-options.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'id INTEGER, name VARCHAR, v INTEGER, seq INTEGER, op VARCHAR';
const BASE = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 as const };

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x ^= x + Math.imul(x ^ (x >>> 7), 61 | x);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

function shuffled<T>(next: () => number, values: readonly T[]): T[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `count` events over `keys` keys, each at its own sequence value; with `nulls`, names and values are often null. */
function events(next: () => number, count: number, nulls: boolean, keys = 8): Cell[][] {
  const sequences = shuffled(
    next,
    Array.from({ length: count }, (_, i) => i + 1),
  );
  return sequences.map((seq) => {
    const id = 1 + Math.floor(next() * keys);
    if (next() < 0.2) return [id, null, null, seq, 'D'];
    const names = nulls ? ['a', 'b', null] : ['a', 'b'];
    return [id, pick(next, names), pick(next, nulls ? [1, 2, null] : [1, 2]), seq, 'U'];
  });
}

/** The events in a random order cut into `count` batches; later batches redeliver a few earlier events. */
function batches(next: () => number, all: readonly Cell[][], count: number): Cell[][][] {
  const order = shuffled(next, all);
  const cuts = [0, ...Array.from({ length: count - 1 }, () => Math.floor(next() * order.length)).sort((a, b) => a - b), order.length];
  return cuts.slice(1).map((cut, i) => {
    const batch = order.slice(cuts[i], cut);
    const earlier = order.slice(0, cuts[i]);
    const redelivered = earlier.length === 0 ? [] : Array.from({ length: 3 }, () => pick(next, earlier));
    return [...batch, ...new Set(redelivered)];
  });
}

/**
 * The events in sequence order cut into `count` equal batches, as a CDC feed delivers them: one
 * event in ten arrives a batch late, and later batches redeliver a few earlier events.
 */
function inOrderBatches(next: () => number, all: readonly Cell[][], count: number): Cell[][][] {
  const order = [...all].sort((a, b) => Number(a[3]) - Number(b[3]));
  const size = Math.ceil(order.length / count);
  const parts: Cell[][][] = Array.from({ length: count }, () => []);
  order.forEach((event, i) => {
    const batch = Math.floor(i / size);
    parts[next() < 0.1 ? Math.min(count - 1, batch + 1) : batch]!.push(event);
  });
  return parts.map((part, i) => {
    const redelivered = i === 0 ? [] : Array.from({ length: 3 }, () => pick(next, order.slice(0, i * size)));
    return [...part, ...new Set(redelivered.filter((event) => !part.includes(event)))];
  });
}

async function inBatches(name: string, options: ApplyChangesOptionsInput, parts: readonly Cell[][][]): Promise<Cell[][]> {
  const op = new ApplyChanges(session, name, options);
  for (const part of parts) {
    await createTable(session, 'changes', COLUMNS, part);
    await op.processBatch('changes');
  }
  return rowsOf(session, `${op.targetQuery()} ORDER BY ALL`);
}

async function inOneBatch(name: string, options: ApplyChangesOptionsInput, all: readonly Cell[][]): Promise<Cell[][]> {
  await createTable(session, 'changes', COLUMNS, all);
  const target = await applyChangesOnce(session, 'changes', options, name);
  return rowsOf(session, `SELECT * FROM ${target} ORDER BY ALL`);
}

/**
 * The history as islands: a version is a maximal run of one key's consecutive upserts with the
 * same values (row-number difference), from its first event to the event after its last.
 */
async function islands(all: readonly Cell[][]): Promise<Cell[][]> {
  await createTable(session, 'all_events', COLUMNS, all);
  return rowsOf(
    session,
    `SELECT id, name, v, min(seq), nullif(max(coalesce(next_seq, 2147483647)), 2147483647)
     FROM (SELECT *, op = 'D' AS del, lead(seq) OVER (PARTITION BY id ORDER BY seq) AS next_seq,
                  row_number() OVER (PARTITION BY id ORDER BY seq) - row_number() OVER (PARTITION BY id, op = 'D', name, v ORDER BY seq) AS island
           FROM all_events)
     WHERE NOT del GROUP BY id, name, v, island ORDER BY ALL`,
  );
}

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

describe('SCD type 2 in batches equals all events at once', () => {
  it('every column tracked: 20 seeds × 300 events × 5 batches, also equal to the islands of the events', async () => {
    for (const seed of SEEDS) {
      const next = random(seed);
      const all = events(next, 300, seed % 2 === 0);
      const once = await inOneBatch(`once_${seed}`, BASE, all);
      expect(once).toEqual(await islands(all));
      expect(await inBatches(`batched_${seed}`, BASE, batches(next, all, 5)), `seed ${seed}`).toEqual(once);
    }
  }, 240_000);

  it.each([
    { keys: 150, seedBase: 300, shape: 'most keys one event per batch' },
    { keys: 30, seedBase: 400, shape: 'several events per key and batch, which skip the rebuild together' },
  ])('mostly in order over $keys keys ($shape): 10 seeds × 1000 events × 10 batches', async ({ keys, seedBase }) => {
    for (const seed of SEEDS.slice(0, 10)) {
      const next = random(seedBase + seed);
      const all = events(next, 1000, seed % 2 === 0, keys);
      const once = await inOneBatch(`once_${seed}`, BASE, all);
      expect(once).toEqual(await islands(all));
      expect(await inBatches(`batched_${seed}`, BASE, inOrderBatches(next, all, 10)), `seed ${seed}`).toEqual(once);
    }
  }, 240_000);

  it('with track-history columns (in-place updates)', async () => {
    const options = { ...BASE, trackHistoryColumnList: ['name'] };
    for (const seed of SEEDS.slice(0, 10)) {
      const next = random(100 + seed);
      const all = events(next, 300, true);
      const once = await inOneBatch(`once_${seed}`, options, all);
      expect(await inBatches(`batched_${seed}`, options, batches(next, all, 5)), `seed ${seed}`).toEqual(once);
    }
  }, 240_000);

  it('with ignoreNullUpdates (nulls take the values before them)', async () => {
    const options = { ...BASE, ignoreNullUpdates: true };
    for (const seed of SEEDS.slice(0, 10)) {
      const next = random(200 + seed);
      const all = events(next, 300, true);
      const once = await inOneBatch(`once_${seed}`, options, all);
      expect(await inBatches(`batched_${seed}`, options, batches(next, all, 5)), `seed ${seed}`).toEqual(once);
    }
  }, 240_000);
});
