/**
 * The values bench/kafka produces, in either format: JSON objects (produce.ts) or the same
 * fields as Confluent-wire Avro under one writer schema served by a loopback registry. And the
 * digest both landed tables (Thund's and Spark's) must show: one SQL select list that DuckDB and
 * Spark SQL both run, and what it gives for records 0..n-1.
 */
import { recordFields, recordValue } from '../../test/integration/kafka-eo-support/produce.js';
import { AvroWire, recordSchema } from '../../test/unit/kafka/avro-wire.js';

export type BenchFormat = 'json' | 'avro';

export const AVRO_SCHEMA_ID = 1;
export const AVRO_VALUE_SCHEMA = recordSchema('bench.Event', { id: 'long', name: 'string', amount: 'double', city: 'string', note: 'string' });

export interface BenchValues {
  readonly valueOf: (i: number) => string | Buffer;
  /** The registry's URL for avro (started here); undefined for json. */
  readonly registryUrl?: string;
  stop(): Promise<void>;
}

export async function benchValues(format: BenchFormat): Promise<BenchValues> {
  if (format === 'json') return { valueOf: recordValue, stop: async () => undefined };
  const wire = new AvroWire(new Map([[AVRO_SCHEMA_ID, { schema: AVRO_VALUE_SCHEMA }]]));
  const registryUrl = await wire.registry.start();
  return { valueOf: (i) => wire.encode(AVRO_SCHEMA_ID, recordFields(i)), registryUrl, stop: () => wire.registry.stop() };
}

/** Rows, distinct keys, rows whose key and name match their id, and sums of the values' fields. */
export const DIGEST_SELECT = [
  'count(*) AS n',
  'count(DISTINCT _kafka_key) AS keys',
  "sum(CASE WHEN _kafka_key = concat('k-', id) AND name = concat('customer-', id) AND city = 'Lisbon' AND length(note) = 120 THEN 1 ELSE 0 END) AS matching",
  'sum(id) AS ids',
  'sum(amount) AS amounts',
].join(', ');

export interface Digest {
  readonly n: number;
  readonly keys: number;
  readonly matching: number;
  readonly ids: number;
  readonly amounts: number;
}

export function expectedDigest(records: number): Digest {
  const ids = (records * (records - 1)) / 2;
  return { n: records, keys: records, matching: records, ids, amounts: ids * 1.25 };
}

/** Differences between a landed digest (numbers, or their text) and the expected one; empty when equal. */
export function digestProblems(who: string, landed: Readonly<Record<string, unknown>> | undefined, expected: Digest): string[] {
  return Object.entries(expected).flatMap(([name, want]) => {
    const got = Number(landed?.[name]);
    return got === want ? [] : [`${who}: ${name} is ${String(landed?.[name])}, expected ${want}`];
  });
}
