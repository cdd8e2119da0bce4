/**
 * The micro-batches a streaming flow has to run: per batch, the new items (files) of each
 * streamed input, cut by the batch limits. An input that lost an item it had already read is
 * refused (a stream reads appended rows only); an input without any item yet means nothing to run.
 */
import { InvalidInputError } from '../../../errors.js';
import type { Flow } from '../../../pipeline/ir/flow.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import { fileBatches, type BatchLimits } from './parquet-stream.js';
import { vanished, type StreamInput } from './stream-input.js';

/** Per batch, per input name, the items of the batch (absent or empty: none). */
export type PendingBatch = ReadonlyMap<string, readonly string[]>;

export async function pendingFileBatches(
  flow: Flow,
  inputs: readonly { readonly input: StreamInput }[],
  processedOf: (input: string) => ReadonlySet<string>,
  limits: BatchLimits,
): Promise<PendingBatch[]> {
  const perInput = new Map<string, string[][]>();
  for (const { input } of inputs) {
    const items = await input.list();
    // An input without any item cannot give its columns yet: nothing to run until it has one.
    if (items.length === 0) return [];
    const processed = processedOf(input.name);
    const gone = vanished(items, processed);
    if (gone.length > 0) {
      throw new InvalidInputError(
        `${formatOrigin(flow.origin)}: flow ${flow.name}: ${input.name} no longer holds ${gone.length} file(s) this stream read (e.g. ${gone[0]}); a stream reads appended rows only: run with --full-refresh`,
        { context: { flow: flow.name, input: input.name } },
      );
    }
    const fresh = items.filter((item) => !processed.has(item));
    const rows = limits.maxRows === undefined ? new Map<string, number>() : await input.rowCounts(fresh);
    perInput.set(input.name, fileBatches(fresh, processed, limits, rows));
  }
  const count = Math.max(0, ...[...perInput.values()].map((batches) => batches.length));
  return Array.from({ length: count }, (_, i) => new Map([...perInput].map(([name, batches]) => [name, batches[i] ?? []])));
}
