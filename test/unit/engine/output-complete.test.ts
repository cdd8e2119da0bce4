import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { openSession } from './engine-test-helpers.js';
import { emittedPerBatch, windowedSum } from './output-mode-fixture.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

describe('complete output mode', () => {
  it('emits the whole result every batch, finalised windows included', async () => {
    const op = windowedSum(session, 'complete');
    const emitted = await emittedPerBatch(session, op);
    const afterThird = [
      ['a', 0, 10, 4, 18],
      ['a', 10, 20, 1, 4],
      ['a', 30, 40, 2, 15],
      ['b', 10, 20, 1, 3],
      ['b', 40, 50, 1, 8],
    ];
    expect(emitted).toEqual([
      [
        ['a', 0, 10, 2, 3],
        ['b', 10, 20, 1, 3],
      ],
      [
        ['a', 0, 10, 4, 18],
        ['a', 10, 20, 1, 4],
        ['a', 30, 40, 1, 6],
        ['b', 10, 20, 1, 3],
      ],
      afterThird,
      [...afterThird, ['c', 60, 70, 1, 11]],
    ]);
  });
});
