/**
 * Writes manifests for a commit. ADDED entries inherit their sequence numbers, so the manifest of
 * added files is written once and reused by every retry; only the manifest list is rewritten.
 */
import {
  ManifestContent,
  ManifestEntryStatus,
  type DataFile,
  type ManifestEntry,
  type ManifestFile,
} from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { partitionType, writeManifest } from '../iceberg/manifest.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { schemaToJson } from '../iceberg/type-json.js';
import { stringifyJson } from '../iceberg/json.js';
import { IcebergFormatError } from '../errors.js';
import { currentSchema, specById } from '../iceberg/snapshot-ancestry.js';
import { manifestLocation } from './locations.js';

/** A manifest written by this commit whose sequence numbers are filled in per attempt. */
export interface PendingManifest {
  readonly file: Omit<ManifestFile, 'sequenceNumber' | 'minSequenceNumber'>;
  /** Smallest explicit data sequence number among its live entries; null when all inherit. */
  readonly minDataSequenceNumber: bigint | null;
}

export interface ManifestWriteContext {
  readonly io: FileIO;
  readonly metadata: TableMetadata;
  readonly snapshotId: bigint;
  readonly commitId: string;
}

/**
 * One manifest of added data files per partition spec among `files` (a manifest holds a single
 * spec; after partition evolution a commit may add files of an old and a new spec), in spec id
 * order. The first is named by `index` alone, the others `index` plus a part number.
 */
export async function writeAddedManifests(
  context: ManifestWriteContext,
  files: readonly DataFile[],
  index: number,
): Promise<PendingManifest[]> {
  const bySpec = new Map<number, DataFile[]>();
  for (const file of files) bySpec.set(file.specId, [...(bySpec.get(file.specId) ?? []), file]);
  const specIds = [...bySpec.keys()].sort((a, b) => a - b);
  const pending: PendingManifest[] = [];
  for (const [part, specId] of specIds.entries()) {
    pending.push(await writeEntries(context, addedEntries(context, bySpec.get(specId)!), ManifestContent.Data, specId, index, part));
  }
  return pending;
}

function addedEntries(context: ManifestWriteContext, files: readonly DataFile[]): ManifestEntry[] {
  return files.map((dataFile) => ({
    status: ManifestEntryStatus.Added,
    snapshotId: context.snapshotId,
    sequenceNumber: null,
    fileSequenceNumber: null,
    dataFile,
  }));
}

/** Entries that this commit removes, kept with their original sequence numbers (spec §3.3). */
export async function writeDeletedManifest(
  context: ManifestWriteContext,
  removed: readonly ManifestEntry[],
  content: ManifestContent,
  specId: number,
  index: number,
): Promise<PendingManifest> {
  const entries = removed.map((entry) => ({ ...entry, status: ManifestEntryStatus.Deleted, snapshotId: context.snapshotId }));
  return writeEntries(context, entries, content, specId, index);
}

/** Writes one manifest of `entries` (one partition spec) for this commit. */
export async function writeEntries(
  context: ManifestWriteContext,
  entries: readonly ManifestEntry[],
  content: ManifestContent,
  specId: number,
  index: number,
  part = 0,
): Promise<PendingManifest> {
  const { metadata } = context;
  const schema = currentSchema(metadata);
  const spec = specById(metadata, specId);
  if (spec === undefined) {
    throw new IcebergFormatError(`Table metadata has no partition spec ${specId}`, { context: { specId } });
  }
  const written = writeManifest({
    entries,
    spec,
    partitionType: partitionType(spec, schema),
    schema,
    schemaJsonText: stringifyJson(schemaToJson(schema)),
    formatVersion: metadata.formatVersion === 3 ? 3 : 2,
    content,
    snapshotId: context.snapshotId,
  });
  const path = manifestLocation(metadata, context.commitId, index, part);
  await context.io.writeNew(path, written.bytes);
  const { minDataSequenceNumber, ...file } = written.summary;
  return { file: { ...file, manifestPath: path, manifestLength: BigInt(written.bytes.byteLength) }, minDataSequenceNumber };
}

/** The manifest-list record of a pending manifest for an attempt with this sequence number. */
export function settle(pending: PendingManifest, sequenceNumber: bigint): ManifestFile {
  const min = pending.minDataSequenceNumber;
  return { ...pending.file, sequenceNumber, minSequenceNumber: min !== null && min < sequenceNumber ? min : sequenceNumber };
}
