/**
 * The checkpoint record of a flow into a Kafka sink: its value is byte for byte the checkpoint.json
 * a table's streaming checkpoint store writes for the same positions (one format, two homes), it
 * decodes back to the same positions, and a record of another flow, with state files or not JSON
 * is refused with a message naming the flow and where the record is.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import { checkpointKey, decodeCheckpoint, encodeCheckpoint } from '../../../../../src/engine/graph/sink/sink-checkpoint.js';
import { CheckpointStore } from '../../../../../src/engine/graph/streaming/checkpoint-store.js';
import { InvalidInputError } from '../../../../../src/errors.js';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-sink-checkpoint-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const positions = { events: ['/data/part-0002.parquet', '/data/part-0001.parquet'], 'lake.orders': [] };

describe('sink checkpoint record', () => {
  it('is the JSON a table checkpoint store writes for the same positions', async () => {
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      const store = new CheckpointStore(session, () => new LocalFileIO(), 'export_events', join(work, 'tmp'));
      const sorted = { events: [...positions.events].sort(), 'lake.orders': [] };
      const saved = await store.save(toFileUri(join(work, 'table')), { batches: 3, positions: sorted }, []);
      const folder = join(work, 'table', 'thund-checkpoints', 'export_events');
      const [id] = readdirSync(folder);
      expect(saved.location.endsWith(`${id}`)).toBe(true);
      const written = readFileSync(join(folder, String(id), 'checkpoint.json'));
      expect(encodeCheckpoint('export_events', 3, positions).equals(written)).toBe(true);
    } finally {
      session.close();
    }
  });

  it('round-trips the positions and the batch count', () => {
    const decoded = decodeCheckpoint('export_events', encodeCheckpoint('export_events', 7, positions), 'in topic t under key k');
    expect(decoded).toEqual({ version: 1, flow: 'export_events', batches: 7, positions: { events: [...positions.events].sort(), 'lake.orders': [] }, stateFiles: [] });
  });

  it('keys the record by pipeline and flow', () => {
    expect(checkpointKey('shop', 'export_events')).toBe('shop/export_events');
  });

  it('refuses a record of another flow, with state files, or not JSON', () => {
    const where = 'in topic thund-checkpoints under key shop/a';
    expect(() => decodeCheckpoint('a', encodeCheckpoint('b', 1, {}), where)).toThrow(
      'flow a: the checkpoint record in topic thund-checkpoints under key shop/a is not one of this flow\'s (it belongs to flow b); run with --full-refresh to start over',
    );
    const withState = Buffer.from(JSON.stringify({ version: 1, flow: 'a', batches: 1, positions: {}, stateFiles: ['agg.parquet'] }));
    expect(() => decodeCheckpoint('a', withState, where)).toThrow(/lists operator state files/);
    expect(() => decodeCheckpoint('a', Buffer.from('{"version":'), where)).toThrow(InvalidInputError);
    expect(() => decodeCheckpoint('a', Buffer.from(JSON.stringify({ version: 2, flow: 'a', batches: 1, positions: {}, stateFiles: [] })), where)).toThrow(/version/);
  });
});
