/**
 * A table whose current snapshot lists a manifest that storage no longer holds is refused before
 * anything is committed: the run fails naming the missing file, and the catalog keeps the table
 * as it was (no new snapshot or metadata file on top of the broken one).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tableSnapshots } from './graph-support.js';
import { ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-missing-manifest-');

const specFile = (name: string, table: string, where: string): string =>
  ordersSpec(workdir(), name, 'lake.broken', table, `SELECT CAST(id AS BIGINT) AS order_id, customer FROM orders WHERE ${where}`);

const metadataFiles = (warehouse: string): string[] => readdirSync(join(warehouse, 'lake', 'broken', 'metadata')).filter((name) => name.endsWith('.metadata.json'));

for (const table of ['{mode: append}', '{mode: upsert, keys: [order_id]}']) {
  it(`a ${table} run fails before committing, naming the missing manifest`, async () => {
    const warehouse = join(workdir(), `wh-${table.includes('upsert') ? 'upsert' : 'append'}`);
    for (const [name, where] of [['first', 'id <= 10'], ['second', 'id BETWEEN 11 AND 20']] as const) {
      const result = thund(['run', specFile(name, table, where), '--warehouse', warehouse]);
      expect(result.stderr).toBe('');
    }
    // A manifest the current snapshot lists (Thund names manifests <uuid>-m<index>.avro).
    const metadataDir = join(warehouse, 'lake', 'broken', 'metadata');
    const manifests = readdirSync(metadataDir).filter((name) => /-m\d+\.avro$/.test(name));
    expect(manifests.length).toBeGreaterThanOrEqual(2);
    const missing = manifests[0] as string;
    rmSync(join(metadataDir, missing));
    const before = await tableSnapshots(warehouse, 'lake.broken');
    const metadataBefore = metadataFiles(warehouse);

    const third = thund(['run', specFile('third', table, 'id BETWEEN 5 AND 30'), '--warehouse', warehouse]);
    expect(third.status).toBe(1);
    expect(third.stderr).toContain(missing);
    expect(third.stderr).toContain('lake.broken');
    expect(await tableSnapshots(warehouse, 'lake.broken')).toEqual(before);
    expect(metadataFiles(warehouse)).toEqual(metadataBefore);
  });
}
