/**
 * Merging of small manifests into fewer, bigger ones within a commit, as Java's
 * MergingSnapshotProducer does, so a table committed every few seconds does not collect
 * thousands of manifests. Two uses:
 * - every ordinary commit: when the new snapshot would list at least
 *   `commit.manifest.min-count-to-merge` manifests (default 100) and
 *   `commit.manifest-merge.enabled` is not false, the parent's manifests smaller than
 *   `commit.manifest.target-size-bytes` (default 8 MiB) are packed, in their order, into bins up
 *   to that size and each bin of several becomes one manifest;
 * - rewrite-manifests (`rewriteAll`): every group's small manifests are rewritten, their entries
 *   sorted by partition so each manifest covers few partitions, at any count.
 * Data and delete manifests, and manifests of different partition specs, never share a manifest.
 * The entries keep their snapshot ids and sequence numbers (status EXISTING); DELETED entries of
 * earlier snapshots are dropped, as Java drops them. A merge is written once per set of inputs
 * and reused by a retry whose parent still lists them.
 */
import { ManifestEntryStatus, type ManifestEntry, type ManifestFile } from '../iceberg/data-file.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { settle, writeEntries, type ManifestWriteContext, type PendingManifest } from './pending-manifests.js';
import { liveEntriesOf } from './scan.js';

export const MANIFEST_MERGE_ENABLED_PROPERTY = 'commit.manifest-merge.enabled';
export const MANIFEST_MIN_MERGE_COUNT_PROPERTY = 'commit.manifest.min-count-to-merge';
export const MANIFEST_TARGET_SIZE_PROPERTY = 'commit.manifest.target-size-bytes';
const DEFAULT_MIN_MERGE_COUNT = 100;
const DEFAULT_TARGET_SIZE_BYTES = 8 * 1024 * 1024;
/** Manifest file numbers of merges, apart from the commit's other manifests. */
const MERGE_INDEX = 2000;

/** rewrite-manifests' settings; the table's target size unless given. */
export interface ManifestRewrite {
  readonly targetSizeBytes?: number;
}

export interface MergeCounts {
  readonly created: number;
  readonly kept: number;
  readonly replaced: number;
  readonly entries: number;
}

export class ManifestMerge {
  private readonly byInputs = new Map<string, PendingManifest[]>();
  private next = MERGE_INDEX;
  private counts: MergeCounts = { created: 0, kept: 0, replaced: 0, entries: 0 };

  constructor(
    private readonly context: ManifestWriteContext,
    private readonly rewrite: ManifestRewrite | undefined,
  ) {}

  private get rewriteAll(): boolean {
    return this.rewrite !== undefined;
  }

  /**
   * The manifests of the new snapshot with `sequenceNumber`: `own` (written by this commit,
   * never merged) first, then `carried` (the parent's), merged where the policy says.
   */
  async apply(metadata: TableMetadata, sequenceNumber: bigint, own: readonly ManifestFile[], carried: readonly ManifestFile[]): Promise<ManifestFile[]> {
    const settings = { ...mergeSettings(metadata.properties), ...(this.rewrite?.targetSizeBytes === undefined ? {} : { targetSizeBytes: this.rewrite.targetSizeBytes }) };
    this.counts = { created: 0, kept: carried.length, replaced: 0, entries: 0 };
    const mergeNow = this.rewriteAll || (settings.enabled && own.length + carried.length >= settings.minCount);
    if (!mergeNow) return [...own, ...carried];
    const result: ManifestFile[] = [...own];
    const groups = new Map<string, ManifestFile[]>();
    for (const manifest of carried) {
      const key = `${manifest.content}/${manifest.partitionSpecId}`;
      groups.set(key, [...(groups.get(key) ?? []), manifest]);
    }
    for (const group of groups.values()) {
      const small = group.filter((manifest) => manifest.manifestLength < settings.targetSizeBytes);
      const bins = this.rewriteAll ? (small.length > 1 ? [small] : []) : packInOrder(small, settings.targetSizeBytes).filter((bin) => bin.length > 1);
      const merged = new Set(bins.flat().map((manifest) => manifest.manifestPath));
      result.push(...group.filter((manifest) => !merged.has(manifest.manifestPath)));
      for (const bin of bins) {
        const written = await this.mergeBin({ ...this.context, metadata }, bin, settings.targetSizeBytes);
        result.push(...written.map((pending) => settle(pending, sequenceNumber)));
        this.counts = {
          created: this.counts.created + written.length,
          kept: this.counts.kept - bin.length,
          replaced: this.counts.replaced + bin.length,
          entries: this.counts.entries + bin.reduce((n, m) => n + m.addedFilesCount + m.existingFilesCount + m.deletedFilesCount, 0),
        };
      }
    }
    return result;
  }

  /** What the last `apply` did. */
  lastCounts(): MergeCounts {
    return this.counts;
  }

  /** The last `apply` as Java's RewriteManifests summary keys. */
  summary(): Record<string, string> {
    return {
      'manifests-created': String(this.counts.created),
      'manifests-kept': String(this.counts.kept),
      'manifests-replaced': String(this.counts.replaced),
      'entries-processed': String(this.counts.entries),
    };
  }

  /** Every manifest a merge wrote, in any attempt. */
  written(): string[] {
    return [...this.byInputs.values()].flat().map((pending) => pending.file.manifestPath);
  }

  /** Merges written in an earlier attempt that `manifests` (the committed list) does not use. */
  unused(manifests: readonly ManifestFile[]): string[] {
    const used = new Set(manifests.map((manifest) => manifest.manifestPath));
    return this.written().filter((path) => !used.has(path));
  }

  private async mergeBin(context: ManifestWriteContext, bin: readonly ManifestFile[], targetSizeBytes: number): Promise<PendingManifest[]> {
    const key = bin.map((manifest) => manifest.manifestPath).join('\n');
    const known = this.byInputs.get(key);
    if (known !== undefined) return known;
    const entries: ManifestEntry[] = [];
    for (const manifest of bin) {
      for (const entry of await liveEntriesOf(context.io, manifest)) entries.push({ ...entry, status: ManifestEntryStatus.Existing });
    }
    const first = bin[0]!;
    let chunks: ManifestEntry[][] = [entries];
    if (this.rewriteAll) {
      entries.sort((a, b) => comparePartitions(a.dataFile.partition, b.dataFile.partition));
      const bytes = bin.reduce((total, manifest) => total + Number(manifest.manifestLength), 0);
      const perManifest = Math.max(1, Math.floor(targetSizeBytes / Math.max(1, bytes / Math.max(1, entries.length))));
      chunks = [];
      for (let i = 0; i < entries.length; i += perManifest) chunks.push(entries.slice(i, i + perManifest));
    }
    const written: PendingManifest[] = [];
    for (const chunk of chunks) {
      if (chunk.length === 0) continue;
      written.push(await writeEntries(context, chunk, first.content, first.partitionSpecId, this.next++));
    }
    this.byInputs.set(key, written);
    return written;
  }
}

export interface MergeSettings {
  readonly enabled: boolean;
  readonly minCount: number;
  readonly targetSizeBytes: number;
}

export function mergeSettings(properties: Readonly<Record<string, string>>): MergeSettings {
  return {
    enabled: properties[MANIFEST_MERGE_ENABLED_PROPERTY]?.toLowerCase() !== 'false',
    minCount: Math.max(2, positiveInt(properties[MANIFEST_MIN_MERGE_COUNT_PROPERTY], DEFAULT_MIN_MERGE_COUNT)),
    targetSizeBytes: positiveInt(properties[MANIFEST_TARGET_SIZE_PROPERTY], DEFAULT_TARGET_SIZE_BYTES),
  };
}

/** Consecutive manifests into bins of at most `target` bytes (a bin holds at least one). */
function packInOrder(manifests: readonly ManifestFile[], target: number): ManifestFile[][] {
  const bins: ManifestFile[][] = [];
  let bin: ManifestFile[] = [];
  let size = 0;
  for (const manifest of manifests) {
    const length = Number(manifest.manifestLength);
    if (bin.length > 0 && size + length > target) {
      bins.push(bin);
      bin = [];
      size = 0;
    }
    bin.push(manifest);
    size += length;
  }
  if (bin.length > 0) bins.push(bin);
  return bins;
}

/** Partition tuples in field order: nulls first, numbers by value, others by their text. */
function comparePartitions(a: ReadonlyMap<number, unknown>, b: ReadonlyMap<number, unknown>): number {
  for (const [fieldId, left] of a) {
    const order = compareValues(left, b.get(fieldId));
    if (order !== 0) return order;
  }
  return 0;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function positiveInt(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}
