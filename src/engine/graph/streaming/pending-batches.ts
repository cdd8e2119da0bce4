/**
 * The micro-batches a streaming flow has to run: per batch, the new items (files) of each
 * streamed input, cut by the batch limits. An input that lost an item it had already read is
 * refused (a stream reads appended rows only); an input without any item yet means nothing to run.
 */
import { InvalidInputError } from '../../../errors.js';
import type { Flow } from '../../../pipeline/ir/flow.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import { fileBatches, type BatchLimits } from './parquet-stream.js';
import { vanished, type FileInput } from './stream-input.js';

/** Per batch, per input name, the items of the batch (absent or empty: none). */
export type PendingBatch = ReadonlyMap<string, readonly string[]>;

export async function pendingFileBatches(
  flow: Flow,
  inputs: readonly { readonly input: FileInput }[],
  processedOf: (input: string) => ReadonlySet<string>,
  limits: BatchLimits,
): Promise<PendingBatch[]> {
  const perInput = new Map<string, string[][]>();
  for (const { input } of inputs) {
    const batches = await fileInputBatches(flow, input, processedOf(input.name), limits);
    if (batches === undefined) return [];
    perInput.set(input.name, batches);
  }
  const count = Math.max(0, ...[...perInput.values()].map((batches) => batches.length));
  return Array.from({ length: count }, (_, i) => new Map([...perInput].map(([name, batches]) => [name, batches[i] ?? []])));
}

/**
 * One input's new files cut into batches; undefined when the input has no file at all yet (it
 * cannot give its columns, so there is nothing to run until it has one).
 */
export async function fileInputBatches(flow: Flow, input: FileInput, processed: ReadonlySet<string>, limits: BatchLimits): Promise<string[][] | undefined> {
  const items = await input.list();
  if (items.length === 0) return undefined;
  const gone = vanished(items, processed);
  if (gone.length > 0) {
    throw new InvalidInputError(
      `${formatOrigin(flow.origin)}: flow ${flow.name}: ${input.name} no longer holds ${gone.length} file(s) this stream read (e.g. ${gone[0]}); a stream reads appended rows only: run with --full-refresh`,
      { context: { flow: flow.name, input: input.name } },
    );
  }
  const fresh = items.filter((item) => !processed.has(item));
  const rows = limits.maxRows === undefined ? new Map<string, number>() : await input.rowCounts(fresh);
  return fileBatches(fresh, processed, limits, rows);
}
