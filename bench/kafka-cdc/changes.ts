/**
 * The change events of bench/kafka-cdc: Debezium JSON envelopes of a Postgres `customers` table
 * (connector postgresql, JSON converter without schemas), keyed by id on the partition id % P so
 * each key's events stay in lsn order, and the same events as a flat CSV for the DuckDB reference.
 *
 * Event i (lsn = i + 1) is a create of key i for the first `keys` events; after that it touches a
 * key drawn uniformly by a seeded generator (so a micro-batch may hold several events of a key,
 * and none of others): a re-create (op c) when the key is deleted, else every 50th event a delete
 * (op d, before = the current image, followed by a tombstone as Debezium sends by default) and
 * otherwise an update (op u, before = the current image). Every image differs from the one before
 * (updated_ms is the event's time), so each create or update opens an SCD2 version.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import type { Message, Producer } from 'kafkajs';

const TIERS = ['bronze', 'silver', 'gold', 'platinum'];

interface Image {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly tier: string;
  readonly amount: number;
  readonly updated_ms: number;
}

/** The row image of `key` at its `version`-th change, written by event `index`. */
const imageOf = (key: number, version: number, index: number): Image => ({
  id: key,
  name: `customer-${key}`,
  email: `c${key}.v${version}@example.com`,
  tier: TIERS[(key + version) % TIERS.length] as string,
  amount: ((key * 37 + version * 101) % 100_000) + 0.5,
  updated_ms: 1_700_000_000_000 + index,
});

export interface ProducedChanges {
  /** Kafka records, tombstones included. */
  readonly records: number;
  readonly events: number;
  readonly creates: number;
  readonly updates: number;
  readonly deletes: number;
}

/**
 * Produces `events` change events (plus a tombstone after each delete) over `keys` keys to the
 * topic's `partitions` partitions, `chunk` records per send, and writes them to `csv` as
 * op,id,lsn,name,email,tier,amount,updated_ms (a delete with its before image).
 */
export async function produceChanges(options: { producer: Producer; topic: string; partitions: number; events: number; keys: number; csv: string; chunk?: number }): Promise<ProducedChanges> {
  const { producer, topic, partitions, events, keys, csv } = options;
  const chunk = options.chunk ?? 10_000;
  const version = new Int32Array(keys);
  const lastIndex = new Int32Array(keys);
  const deleted = new Uint8Array(keys);
  const random = mulberry32(16);
  const counts = { records: 0, events, creates: 0, updates: 0, deletes: 0 };
  writeFileSync(csv, '');
  for (let start = 0; start < events; start += chunk) {
    const messages: Message[] = [];
    const lines: string[] = [];
    for (let i = start; i < Math.min(events, start + chunk); i++) {
      const key = i < keys ? i : Math.floor(random() * keys);
      const op = i < keys || deleted[key] === 1 ? 'c' : i % 50 === 0 ? 'd' : 'u';
      const before = op === 'c' ? null : imageOf(key, version[key] as number, lastIndex[key] as number);
      let after: Image | null = null;
      if (op === 'd') deleted[key] = 1;
      else {
        version[key] = (version[key] as number) + (i < keys ? 0 : 1);
        lastIndex[key] = i;
        deleted[key] = 0;
        after = imageOf(key, version[key] as number, i);
      }
      const lsn = i + 1;
      const tsMs = 1_700_000_000_000 + i;
      const source = { version: '2.7.3.Final', connector: 'postgresql', name: 'shop', ts_ms: tsMs, snapshot: 'false', db: 'shop', sequence: `["${lsn - 1}","${lsn}"]`, schema: 'public', table: 'customers', txId: 1000 + Math.floor(i / 4), lsn, xmin: null };
      const partition = key % partitions;
      messages.push({ partition, key: String(key), value: JSON.stringify({ before, after, source, op, ts_ms: tsMs + 7 }) });
      if (op === 'd') messages.push({ partition, key: String(key), value: null });
      const image = (after ?? before) as Image;
      lines.push(`${op},${key},${lsn},${image.name},${image.email},${image.tier},${image.amount},${image.updated_ms}`);
      counts[op === 'c' ? 'creates' : op === 'u' ? 'updates' : 'deletes']++;
    }
    await producer.send({ topic, messages, acks: -1 });
    counts.records += messages.length;
    appendFileSync(csv, `${lines.join('\n')}\n`);
  }
  return counts;
}

/** A seeded generator of uniform numbers in [0, 1) (mulberry32): the same events on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The events of the CSV as DuckDB relation `events` (op, id, lsn and the row image). */
export const eventsTable = (csvLiteral: string): string =>
  `CREATE TABLE events AS SELECT * FROM read_csv(${csvLiteral}, header = false,
     columns = {'op': 'VARCHAR', 'id': 'BIGINT', 'lsn': 'BIGINT', 'name': 'VARCHAR', 'email': 'VARCHAR', 'tier': 'VARCHAR', 'amount': 'DOUBLE', 'updated_ms': 'BIGINT'})`;

/**
 * The reference SCD2 history over `events`: each create or update is a version from its lsn to
 * the key's next event (NULL: current); deletes only end the version before them.
 */
export const REFERENCE_HISTORY = `
  CREATE TABLE reference AS
  SELECT id, name, email, tier, amount, updated_ms, __START_AT, __END_AT FROM (
    SELECT *, lsn AS __START_AT, lead(lsn) OVER (PARTITION BY id ORDER BY lsn) AS __END_AT FROM events)
  WHERE op <> 'd'`;
