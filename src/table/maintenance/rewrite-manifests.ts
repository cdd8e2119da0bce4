/**
 * rewrite-manifests: the current snapshot's small manifests merged into manifests of
 * `commit.manifest.target-size-bytes`, clustered by partition, data and delete manifests apart,
 * as one `replace` snapshot that changes no data (manifest-merge.ts does the merging, the
 * ordinary commit loop the committing: a concurrent commit makes it merge again on the new table).
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { snapshotForRef } from '../../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH } from '../../iceberg/table-metadata.js';
import { commitSnapshot } from '../commit-snapshot.js';
import { mergeSettings } from '../manifest-merge.js';
import { manifestsOf } from '../scan.js';
import type { MaintenanceOutcome, MaintenanceTarget } from './maintenance-action.js';

export interface RewriteManifestsOptions {
  /** Overrides the table's `commit.manifest.target-size-bytes`. */
  readonly targetSizeBytes?: number;
}

export async function rewriteManifests(target: MaintenanceTarget, options: RewriteManifestsOptions = {}): Promise<MaintenanceOutcome> {
  const loaded = await target.catalog.loadTable(target.identifier);
  const { metadata } = loaded;
  const head = snapshotForRef(metadata, MAIN_BRANCH);
  const targetSizeBytes = options.targetSizeBytes ?? mergeSettings(metadata.properties).targetSizeBytes;
  const manifests = head === undefined ? [] : await manifestsOf(target.io, head);
  const groups = new Map<string, number>();
  for (const manifest of manifests) {
    if (manifest.manifestLength >= BigInt(targetSizeBytes)) continue;
    const key = `${manifest.content}/${manifest.partitionSpecId}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  const rewritable = [...groups.values()].filter((count) => count > 1).reduce((total, count) => total + count, 0);
  const base = { action: 'rewrite-manifests' as const, dryRun: target.dryRun };
  if (rewritable === 0 || target.dryRun) {
    const what = rewritable === 0 ? 'nothing to rewrite' : `${rewritable} would be rewritten`;
    return { ...base, summary: `rewrite-manifests: ${manifests.length} manifests, ${what}`, counts: { manifests: manifests.length, manifestsReplaced: rewritable } };
  }
  const result = await commitSnapshot({
    catalog: target.catalog,
    identifier: target.identifier,
    base: { metadata, io: target.io, create: false },
    mode: 'append',
    addedFiles: [],
    rewriteManifests: { targetSizeBytes },
    ...(target.summaryProperties === undefined ? {} : { summaryProperties: target.summaryProperties }),
  });
  const summary = result.snapshot.summary;
  const counts = {
    manifestsBefore: manifests.length,
    manifestsAfter: (await manifestsOf(target.io, result.snapshot)).length,
    manifestsCreated: Number(summary['manifests-created'] ?? 0),
    manifestsKept: Number(summary['manifests-kept'] ?? 0),
    manifestsReplaced: Number(summary['manifests-replaced'] ?? 0),
  };
  return {
    ...base,
    summary: `rewrite-manifests: ${counts.manifestsReplaced} manifests → ${counts.manifestsCreated} in ${formatIdentifier(target.identifier)} (${counts.manifestsKept} kept), snapshot ${result.snapshot.snapshotId}`,
    counts,
    snapshotId: result.snapshot.snapshotId,
  };
}
