/**
 * `thund maintain` as a user runs it (the built CLI) on an embedded warehouse holding a table of
 * many small appends with position deletes: --dry-run prints what compaction would do and
 * changes nothing; a real run compacts (the rows read back are the same); bad flags and bad
 * table names are refused naming them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentSnapshot } from '../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { openLocalWarehouse, type LocalWarehouse } from '../unit/local-warehouse.js';
import { appendMany, createEvents, ID, liveFiles, scanRows } from '../unit/table/maintenance/maintenance-table.js';
import { thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'maintain-cli', namespaces: [['db']] });
  await createEvents(warehouse);
  await appendMany(warehouse, 8, 30);
  await deleteWhere({ catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session }, 'id % 4 = 0');
});
afterEach(() => warehouse.close());

const snapshotId = async (): Promise<bigint | undefined> => currentSnapshot((await warehouse.catalog.loadTable(ID)).metadata)?.snapshotId;

describe('thund maintain', () => {
  it('--compact --dry-run says what would change and changes nothing; a real run compacts', async () => {
    const before = await scanRows(warehouse);
    const start = await snapshotId();
    const dry = thund(['maintain', 'db.events', '--compact', '--dry-run', '--warehouse', warehouse.work]);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/^db\.events {2}compact \(dry run\): would rewrite 8 files \(.+\) in 1 partition into about 1 files of 512\.0 MiB\n$/);
    expect(await snapshotId()).toBe(start);

    const json = thund(['maintain', 'db.events', '--compact', '--dry-run', '--json', '--warehouse', warehouse.work]);
    expect(JSON.parse(json.stdout)).toMatchObject({ table: 'db.events', action: 'compact', dryRun: true, counts: { dataFilesIn: 8, estimatedFilesOut: 1 }, snapshotId: null });

    const run = thund(['maintain', 'db.events', '--compact', '--rewrite-position-deletes', '--warehouse', warehouse.work]);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual([
      expect.stringMatching(/^db\.events {2}compact: 8 files \(.+\) → 1 files \(.+\) in 1 partition, 1 delete files removed$/),
      'db.events  rewrite-position-deletes: nothing to rewrite',
      '',
    ]);
    expect(await snapshotId()).not.toBe(start);
    expect((await liveFiles(warehouse)).data).toHaveLength(1);
    expect(await scanRows(warehouse)).toEqual(before);
  });

  it('--pipeline maintains the pipeline\'s tables, and refuses a table it does not write', () => {
    const spec = ordersSpec(warehouse.work, 'events', 'db.events', '{}', 'SELECT * FROM orders');
    const dry = thund(['maintain', '--pipeline', spec, '--compact', '--dry-run', '--warehouse', warehouse.work]);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toMatch(/^db\.events {2}compact \(dry run\): would rewrite 8 files/);
    const other = thund(['maintain', '--pipeline', spec, 'db.other', '--compact', '--warehouse', warehouse.work]);
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(`db.other is not a table of pipeline ${spec}`);
  });

  it('refuses bad flags and table names, naming them', () => {
    const unknownFlag = thund(['maintain', 'db.events', '--compcat', '--warehouse', warehouse.work]);
    expect(unknownFlag.status).not.toBe(0);
    expect(unknownFlag.stderr).toContain("'--compcat'");
    const badName = thund(['maintain', 'events', '--warehouse', warehouse.work]);
    expect(badName.stderr).toContain('"events" is not a table name');
    const missing = thund(['maintain', 'db.nope', '--compact', '--warehouse', warehouse.work]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/NO_SUCH_TABLE.*db\.nope/);
    const retain = thund(['maintain', 'db.events', '--compact', '--retain-last', '3', '--warehouse', warehouse.work]);
    expect(retain.stderr).toContain('--retain-last goes with --expire-snapshots');
    const olderSpecs = thund(['maintain', 'db.events', '--expire-snapshots', '--include-older-specs', '--warehouse', warehouse.work]);
    expect(olderSpecs.stderr).toContain('--include-older-specs goes with --compact');
    const withOlderSpecs = thund(['maintain', 'db.events', '--compact', '--include-older-specs', '--dry-run', '--warehouse', warehouse.work]);
    expect(withOlderSpecs.status).toBe(0);
    expect(withOlderSpecs.stdout).toContain('compact (dry run): would rewrite 8 files');
    const badAge = thund(['maintain', 'db.events', '--expire-snapshots', '--older-than', 'soon', '--warehouse', warehouse.work]);
    expect(badAge.status).not.toBe(0);
    expect(badAge.stderr).toContain('--older-than must be a duration such as 3d, 12h or 90m, or an ISO timestamp (got "soon")');
  });

  it('runs every action, in order, when none is named; the rows stay and the history is cut to what --retain-last keeps', async () => {
    const before = await scanRows(warehouse);
    const run = thund(['maintain', 'db.events', '--retain-last', '1', '--older-than', '0ms', '--warehouse', warehouse.work]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').map((line) => line.split(':')[0])).toEqual([
      'db.events  compact',
      'db.events  rewrite-position-deletes',
      'db.events  rewrite-manifests',
      'db.events  expire-snapshots',
      'db.events  remove-orphans',
      '',
    ]);
    const { metadata } = await warehouse.catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(1);
    expect(await scanRows(warehouse)).toEqual(before);
  });
});
