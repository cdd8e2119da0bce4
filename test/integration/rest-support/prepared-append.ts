/**
 * An append prepared with the real snapshot producer (commitSnapshot: manifest, manifest list,
 * snapshot, requirements) but not sent: the catalog it talks to records the commit instead, so a
 * test can put several tables' changes into one multi-table transaction.
 */
import type { Catalog, LoadedTable } from '../../../catalog/catalog.js';
import type { TableChange } from '../../../catalog/rest/rest-catalog.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import type { Snapshot } from '../../../src/iceberg/table-metadata.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';

export interface PreparedAppend {
  readonly change: TableChange;
  readonly snapshot: Snapshot;
}

export async function prepareAppend(catalog: Catalog, base: LoadedTable, addedFiles: readonly DataFile[]): Promise<PreparedAppend> {
  let change: TableChange | undefined;
  const recorder = new Proxy(catalog, {
    get(target, property, receiver) {
      if (property === 'commitTable') {
        return async (identifier: TableChange['identifier'], requirements: TableChange['requirements'], updates: TableChange['updates']) => {
          change = { identifier, requirements, updates };
          return base;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const result = await commitSnapshot({
    catalog: recorder,
    identifier: base.identifier,
    base: { metadata: base.metadata, io: base.io, create: false },
    mode: 'append',
    addedFiles,
  });
  if (change === undefined) throw new Error('commitSnapshot did not commit');
  return { change, snapshot: result.snapshot };
}
