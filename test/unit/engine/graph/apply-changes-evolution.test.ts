/**
 * Apply-changes targets (SCD1 and SCD2) under the rules every table write obeys: the batch that
 * creates the table obeys the key rules (a null key fails it and creates nothing), and a column
 * another writer dropped comes back as a new column, as an append brings it back, in the batch's
 * one snapshot.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyChangesSink } from '../../../../src/engine/graph/apply-changes-sink.js';
import { schemaUpdate } from '../../../../src/iceberg/schema-update.js';
import { currentSchema } from '../../../../src/iceberg/snapshot-ancestry.js';
import { cdcContext, changeBatch, identifierOf, openWarehouse, scanTarget, type Warehouse } from './cdc-sink-fixture.js';

let warehouse: Warehouse;
beforeEach(async () => {
  warehouse = await openWarehouse();
});
afterEach(async () => {
  await warehouse.close();
});

const COLUMNS = 'id INTEGER, val VARCHAR, seq INTEGER';

describe.each([1, 2] as const)('SCD type %i', (scdType) => {
  const settings = (name: string) => ({ name, changes: { keys: ['id'], sequenceBy: 'seq', storedAsScdType: scdType } });

  it('refuses a null key in the batch that creates the table, and creates nothing', async () => {
    const sink = await createApplyChangesSink(cdcContext(warehouse, settings(`nulls${scdType}`)));
    const batch = await changeBatch(warehouse.session, 'changes', COLUMNS, [
      [1, 'a', 1],
      [null, 'b', 2],
    ]);
    const error = await sink.write(batch, {}).catch((e: unknown) => e);
    expect(String(error)).toMatch(/null key column "id"/);
    expect(String(error)).toContain(`"cdc_nulls${scdType}" into lake.nulls${scdType}`);
    expect(await warehouse.catalog.tableExists(identifierOf(`nulls${scdType}`))).toBe(false);
  });

  it('refuses a null sequence value naming the flow and its table, and creates nothing', async () => {
    const sink = await createApplyChangesSink(cdcContext(warehouse, settings(`nullseq${scdType}`)));
    const batch = await changeBatch(warehouse.session, 'changes', COLUMNS, [[1, 'a', null]]);
    const error = await sink.write(batch, {}).catch((e: unknown) => e);
    expect(String(error)).toMatch(/null sequence \(seq\)/);
    expect(String(error)).toContain(`"cdc_nullseq${scdType}" into lake.nullseq${scdType}`);
    expect(await warehouse.catalog.tableExists(identifierOf(`nullseq${scdType}`))).toBe(false);
  });

  it('refuses a key column the change rows do not have, naming it, and creates nothing', async () => {
    const name = `nokey${scdType}`;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name, changes: { keys: ['customer'], sequenceBy: 'seq', storedAsScdType: scdType } }));
    const batch = await changeBatch(warehouse.session, 'changes', COLUMNS, [[1, 'a', 1]]);
    const error = await sink.write(batch, {}).catch((e: unknown) => e);
    expect(String(error)).toContain('customer');
    expect(String(error)).toContain(`"cdc_${name}" into lake.${name}`);
    expect(await warehouse.catalog.tableExists(identifierOf(name))).toBe(false);
  });

  it('takes back a column another writer dropped, as a new column, in the batch snapshot', async () => {
    const name = `dropped${scdType}`;
    const sink = await createApplyChangesSink(cdcContext(warehouse, settings(name)));
    await sink.write(await changeBatch(warehouse.session, 'changes', COLUMNS, [[1, 'a', 1], [2, 'b', 2]]), {});
    const base = (await warehouse.catalog.loadTable(identifierOf(name))).metadata;
    const drop = schemaUpdate(base, currentSchema(base).fields.filter((field) => field.name !== 'val'));
    await warehouse.catalog.commitTable(identifierOf(name), [{ type: 'assert-table-uuid', uuid: base.tableUuid }, ...drop.requirements], drop.updates);
    await sink.write(await changeBatch(warehouse.session, 'changes', COLUMNS, [[2, 'c', 3], [3, 'd', 4]]), {});
    const after = (await warehouse.catalog.loadTable(identifierOf(name))).metadata;
    expect(after.snapshots).toHaveLength(2);
    const columns = currentSchema(after).fields.map((field) => field.name);
    expect(columns.at(-1)).toBe('val');
    const rows = await scanTarget(warehouse, name, 'id, seq');
    const idValSeq = rows.map((row) => [row[columns.indexOf('id')], row[columns.indexOf('val')], row[columns.indexOf('seq')]]);
    // SCD2 rewrites the version of key 2 it closes from its state, which still holds its val.
    expect(idValSeq).toEqual(scdType === 1 ? [[1, null, 1], [2, 'c', 3], [3, 'd', 4]] : [[1, null, 1], [2, 'b', 2], [2, 'c', 3], [3, 'd', 4]]);
  });
});
