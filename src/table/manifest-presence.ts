/**
 * A commit builds on its parent's manifests by reference: a manifest the parent lists but storage
 * no longer holds would be carried into the new snapshot, which readers then fail on. So the
 * parent's manifests are checked before anything is written, and such a table is refused.
 */
import { formatIdentifier, type TableIdentifier } from '../../catalog/catalog.js';
import { IcebergFormatError } from '../errors.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { Snapshot } from '../iceberg/table-metadata.js';
import { manifestsOf } from './scan.js';

export async function checkManifestsPresent(io: FileIO, identifier: TableIdentifier, parent: Snapshot | undefined): Promise<void> {
  if (parent === undefined) return;
  const manifests = await manifestsOf(io, parent);
  const present = await Promise.all(manifests.map((manifest) => io.exists(manifest.manifestPath)));
  const missing = manifests.filter((_, index) => present[index] !== true);
  const first = missing[0];
  if (first === undefined) return;
  const table = formatIdentifier(identifier);
  throw new IcebergFormatError(
    `Table ${table}: its current snapshot ${parent.snapshotId} lists manifest ${first.manifestPath}, which is missing from storage` +
      `${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}; nothing was committed — restore the file or roll the table back to a snapshot without it`,
    { context: { table, file: first.manifestPath, snapshotId: parent.snapshotId, missing: missing.length } },
  );
}
