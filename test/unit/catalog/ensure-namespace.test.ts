import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureNamespace } from '../../../catalog/ensure-namespace.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';

async function twoWritersOfOneCatalog(): Promise<[SqlCatalog, SqlCatalog]> {
  const dir = await mkdtemp(join(tmpdir(), 'thund-ensure-ns-'));
  const open = () => new SqlCatalog({ databasePath: join(dir, 'catalog.db'), warehouse: join(dir, 'warehouse'), io: new LocalFileIO() });
  return [open(), open()];
}

describe('ensureNamespace', () => {
  it('lets two writers that both saw no namespace create it together: one creates it, the other finds it made', async () => {
    const [first, second] = await twoWritersOfOneCatalog();
    // Both check before either creates (two runs starting together); the loser's "already exists" is success.
    const created = await Promise.all([ensureNamespace(first, ['lake']), ensureNamespace(second, ['lake'])]);
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await first.listNamespaces()).toEqual([['lake']]);
  });

  it('creates nothing for the root namespace or one that exists, and says it created nothing', async () => {
    const [catalog] = await twoWritersOfOneCatalog();
    expect(await ensureNamespace(catalog, [])).toBe(false);
    expect(await ensureNamespace(catalog, ['lake'])).toBe(true);
    expect(await ensureNamespace(catalog, ['lake'])).toBe(false);
  });

  it('passes on a failure that is not "already exists"', async () => {
    const [catalog] = await twoWritersOfOneCatalog();
    const failing = Object.assign(Object.create(catalog) as SqlCatalog, {
      createNamespace: () => Promise.reject(new Error('catalog unreachable')),
    });
    await expect(ensureNamespace(failing, ['lake'])).rejects.toThrow('catalog unreachable');
  });
});
