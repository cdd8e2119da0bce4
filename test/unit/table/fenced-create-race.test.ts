/**
 * A fenced commit that creates its table loses the create to another writer whose commit left
 * the fence's positions as they were (another process of a consumer group landing other
 * partitions): the batch is planned again on that table (StalePositionsError), never failed as
 * a plain conflict, which stopped a serving process in CI.
 */
import { afterEach, expect, it } from 'vitest';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { CommitConflictError, StalePositionsError } from '../../../src/errors.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'id', required: false, type: primitive('long') }] };
let warehouse: LocalWarehouse | undefined;
afterEach(async () => warehouse?.close());

async function raceOnCreate(fence?: () => void): Promise<unknown> {
  warehouse = await openLocalWarehouse({ prefix: 'create-race', namespaces: [['lake']] });
  const { catalog, io } = warehouse;
  const id = { namespace: ['lake'], name: 'events' };
  const staged = await catalog.stageCreateTable(id, { schema });
  // The other writer creates the table between our stage-create and our commit.
  await catalog.createTable(id, { schema });
  return commitSnapshot({ catalog, identifier: id, base: { metadata: staged, io, create: true }, mode: 'append', addedFiles: [], ...(fence === undefined ? {} : { fence }) }).then(
    () => 'committed',
    (error: unknown) => error,
  );
}

it('plans a fenced batch again when the table was created under it and its positions did not move', async () => {
  let checked = 0;
  const error = await raceOnCreate(() => void (checked += 1));
  expect(error).toBeInstanceOf(StalePositionsError);
  expect((error as Error).message).toMatch(/lake\.events was created by another writer at the same time; the batch is planned again/);
  expect(checked).toBeGreaterThanOrEqual(2);
});

it('still fails an unfenced create that another writer beat', async () => {
  const error = await raceOnCreate();
  expect(error).toBeInstanceOf(CommitConflictError);
  expect(error).not.toBeInstanceOf(StalePositionsError);
});
