/**
 * Input positions as a checkpoint stores them: files per file input (`positions`), and per Kafka
 * input the next offset per topic and partition (`offsets`, int64 as decimal text).
 */
import type { Checkpoint } from './checkpoint-store.js';
import type { InputPosition } from './input-round.js';

export function positionsOf(checkpoint: Pick<Checkpoint, 'positions' | 'offsets'>): Map<string, InputPosition> {
  const positions = new Map<string, InputPosition>();
  for (const [input, files] of Object.entries(checkpoint.positions)) positions.set(input, { kind: 'files', files });
  for (const [input, topics] of Object.entries(checkpoint.offsets ?? {})) {
    const offsets = Object.entries(topics).flatMap(([topic, partitions]) =>
      Object.entries(partitions).map(([partition, offset]) => ({ topic, partition: Number(partition), nextOffset: BigInt(offset) })),
    );
    positions.set(input, { kind: 'offsets', offsets });
  }
  return positions;
}

export function checkpointPositions(positions: ReadonlyMap<string, InputPosition | undefined>): Pick<Checkpoint, 'positions' | 'offsets'> {
  const files: Record<string, string[]> = {};
  const offsets: Record<string, Record<string, Record<string, string>>> = {};
  for (const [input, position] of positions) {
    if (position === undefined) continue;
    if (position.kind === 'files') {
      files[input] = [...position.files];
      continue;
    }
    const topics: Record<string, Record<string, string>> = {};
    for (const p of position.offsets) (topics[p.topic] ??= {})[String(p.partition)] = p.nextOffset.toString();
    offsets[input] = topics;
  }
  return Object.keys(offsets).length === 0 ? { positions: files } : { positions: files, offsets };
}
