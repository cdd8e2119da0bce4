/**
 * A commit builds on its parent's manifests by reference: a manifest the parent lists but storage
 * no longer holds would be carried into the new snapshot, which readers then fail on. So the
 * parent's manifests are checked before anything is written, and such a table is refused.
 *
 * Manifests are immutable, so a manifest seen present is not looked at again by this process: a
 * writer committing often (thund serve) checks only the manifests added since its last commit,
 * not every manifest of a table that grows by one each commit.
 */
import { formatIdentifier, type TableIdentifier } from '../../catalog/catalog.js';
import { IcebergFormatError } from '../errors.js';
import type { ManifestFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { Snapshot } from '../iceberg/table-metadata.js';
import { manifestsOf } from './scan.js';

const seenPresent = new Set<string>();
/** Forget what was seen rather than grow without bound in a long-running process. */
const SEEN_LIMIT = 200_000;
/** Existence checks in flight at once (each is a HEAD request on an object store). */
const CONCURRENT_CHECKS = 16;

/** `listed`: the parent's manifests when the caller has read its manifest list already. */
export async function checkManifestsPresent(
  io: FileIO,
  identifier: TableIdentifier,
  parent: Snapshot | undefined,
  listed?: readonly ManifestFile[],
): Promise<void> {
  if (parent === undefined) return;
  const unseen = (listed ?? (await manifestsOf(io, parent))).map((manifest) => manifest.manifestPath).filter((path) => !seenPresent.has(path));
  const missing: string[] = [];
  for (let start = 0; start < unseen.length; start += CONCURRENT_CHECKS) {
    const batch = unseen.slice(start, start + CONCURRENT_CHECKS);
    const present = await Promise.all(batch.map((path) => io.exists(path)));
    batch.forEach((path, index) => (present[index] === true ? remember(path) : missing.push(path)));
  }
  const [first] = missing;
  if (first === undefined) return;
  const table = formatIdentifier(identifier);
  throw new IcebergFormatError(
    `Table ${table}: its current snapshot ${parent.snapshotId} lists manifest ${first}, which is missing from storage` +
      `${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}; nothing was committed — restore the file or roll the table back to a snapshot without it`,
    { context: { table, file: first, snapshotId: parent.snapshotId, missing: missing.length } },
  );
}

function remember(path: string): void {
  if (seenPresent.size >= SEEN_LIMIT) seenPresent.clear();
  seenPresent.add(path);
}
