import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfluentAvroDecoder } from '../../../connectors/kafka/avro-decoder.js';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { basicAuthFromEnv, SchemaRegistryClient, SchemaRegistryError } from '../../../connectors/kafka/schema-registry-client.js';
import { InvalidInputError } from '../../../src/errors.js';
import { AvroWire, nullable, recordSchema } from './avro-wire.js';
import { rawRecord } from './records.js';

const ORDER_SCHEMA = recordSchema('shop.Order', { id: 'long', customer: 'string', note: nullable('string'), amount: 'double' });
const ORDER_V2_SCHEMA = { ...ORDER_SCHEMA, fields: [...ORDER_SCHEMA.fields, { name: 'paid', type: 'boolean', default: false }] };

const env = { SR_USER: 'thund', SR_PASSWORD: 's3cret-pw' };
const wire = new AvroWire(
  new Map([
    [1, { schema: ORDER_SCHEMA }],
    [2, { schema: ORDER_V2_SCHEMA, schemaType: 'AVRO' }],
    [3, { schema: { type: 'string' } }],
    [4, { schema: 'syntax = "proto3";', schemaType: 'PROTOBUF' }],
    [5, { schema: ORDER_SCHEMA, references: [{ name: 'shop.Money', subject: 'money', version: 1 }] }],
  ]),
  { credentials: { username: 'thund', password: 's3cret-pw' } },
);
const registry = wire.registry;
let url: string;

beforeAll(async () => {
  url = await registry.start();
});
afterAll(async () => {
  await registry.stop();
});

const BIG_ID = 2n ** 62n + 1n;

/** Replaces a record's first field, a long written as 0 (one byte), by `value` as Avro's zigzag varint. */
function withLongFirst(value: bigint, encodedWithZero: Buffer): Buffer {
  expect(encodedWithZero[0]).toBe(0);
  let zigzag = value >= 0n ? value << 1n : ((-value) << 1n) - 1n;
  const bytes: number[] = [];
  while (zigzag >= 0x80n) {
    bytes.push(Number(zigzag & 0x7fn) | 0x80);
    zigzag >>= 7n;
  }
  bytes.push(Number(zigzag));
  return Buffer.concat([Buffer.from(bytes), encodedWithZero.subarray(1)]);
}

function client(): SchemaRegistryClient {
  const auth = basicAuthFromEnv(env, { usernameEnv: 'SR_USER', passwordEnv: 'SR_PASSWORD' });
  return new SchemaRegistryClient({ url, ...(auth === undefined ? {} : { auth }) });
}

describe('Confluent Avro decoder', () => {
  it('decodes records of two schema versions, fetching each schema once with basic auth', async () => {
    registry.requests.length = 0;
    const decoder = new ConfluentAvroDecoder(client());
    const first = [
      rawRecord(encodeConfluentWire(1, withLongFirst(BIG_ID, wire.payload(1, { id: 0, customer: 'ann', note: null, amount: 12.5 }))), { offset: 1n }),
      wire.record(2, { id: 2, customer: 'bob', note: 'gift', amount: 3, paid: true }, 2n),
      wire.record(1, { id: 3, customer: 'cy', note: 'x', amount: 0 }, 3n),
    ];
    await decoder.prepare(first);
    const batch = decodeRecords(decoder, first);
    expect(batch.deadLetters).toEqual([]);
    expect(batch.records.map((r) => ({ ...r.value }))).toEqual([
      { id: BIG_ID, customer: 'ann', note: null, amount: 12.5 },
      { id: 2n, customer: 'bob', note: 'gift', amount: 3, paid: true },
      { id: 3n, customer: 'cy', note: 'x', amount: 0 },
    ]);
    const second = [wire.record(2, { id: 4, customer: 'di', note: null, amount: 1, paid: false }, 4n)];
    await decoder.prepare(second);
    expect(decodeRecords(decoder, second).records[0]?.value['customer']).toBe('di');
    expect(registry.requests.sort()).toEqual(['GET /schemas/ids/1', 'GET /schemas/ids/2']);
  });

  it('caches one lookup per id in the registry client, also for concurrent callers', async () => {
    registry.requests.length = 0;
    const shared = client();
    const [a, b] = await Promise.all([shared.schemaById(1), shared.schemaById(1)]);
    expect(a).toBe(b);
    expect(JSON.parse(a.schema)).toEqual(ORDER_SCHEMA);
    expect(a.schemaType).toBe('AVRO');
    expect(registry.requests).toEqual(['GET /schemas/ids/1']);
  });

  it('makes records it cannot decode dead-letter candidates with their offsets and reasons, and decodes the rest', async () => {
    const decoder = new ConfluentAvroDecoder(client());
    const good = wire.payload(1, { id: 1, customer: 'ok', note: null, amount: 1 });
    const records = [
      wire.record(1, { id: 1, customer: 'ok', note: null, amount: 1 }, 10n),
      rawRecord(encodeConfluentWire(99, good), { offset: 11n }),
      rawRecord(Buffer.concat([Buffer.from([1, 0, 0, 0, 1]), good]), { offset: 12n }),
      rawRecord(Buffer.from([0, 0]), { offset: 13n }),
      rawRecord(encodeConfluentWire(1, good.subarray(0, good.length - 3)), { offset: 14n }),
      wire.record(3, 'plain', 15n),
      rawRecord(encodeConfluentWire(4, Buffer.from([8, 1])), { offset: 16n }),
      rawRecord(encodeConfluentWire(5, good), { offset: 17n }),
      rawRecord(null, { offset: 18n }),
      wire.record(1, { id: 2, customer: 'also ok', note: null, amount: 2 }, 19n),
    ];
    await decoder.prepare(records);
    const batch = decodeRecords(decoder, records);
    expect(batch.records.map((r) => [r.offset, r.value['customer']])).toEqual([
      [10n, 'ok'],
      [19n, 'also ok'],
    ]);
    expect(batch.deadLetters.map((d) => [d.offset, d.reason])).toEqual([
      [11n, 'schema id 99 is not in the schema registry'],
      [12n, 'magic byte is 1, expected 0 (not Confluent wire format)'],
      [13n, '2 bytes, shorter than the 5-byte Confluent header'],
      [14n, expect.stringMatching(/^bytes do not match Avro schema id 1: /)],
      [15n, 'schema id 3 is an Avro string, not a record'],
      [16n, 'schema id 4 is PROTOBUF, not AVRO'],
      [17n, 'schema id 5 uses schema references, which are not supported yet'],
    ]);
    expect(batch.deadLetters[1]?.value).toEqual(records[2]?.value);
    expect(batch.skipped).toEqual({ tombstone: 1 });
  });

  it('fails prepare with a retryable error when the registry answers 5xx, keeping credentials out of it', async () => {
    registry.failing.set(1, 503);
    try {
      const decoder = new ConfluentAvroDecoder(client());
      const error = await decoder.prepare([wire.record(1, { id: 1, customer: 'x', note: null, amount: 1 }, 1n)]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SchemaRegistryError);
      expect((error as SchemaRegistryError).retryable).toBe(true);
      expect((error as SchemaRegistryError).message).toContain('answered 503 for schema id 1');
      expect((error as SchemaRegistryError).message).not.toContain('s3cret-pw');
    } finally {
      registry.failing.delete(1);
    }
  });

  it('reports wrong credentials as a non-retryable registry error without the password', async () => {
    const wrong = new SchemaRegistryClient({ url, auth: { username: 'thund', password: 'wrong-pw' } });
    const error = await wrong.schemaById(1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SchemaRegistryError);
    expect((error as SchemaRegistryError).message).toContain('answered 401');
    expect((error as SchemaRegistryError).retryable).toBe(false);
    expect((error as SchemaRegistryError).message).not.toContain('wrong-pw');
  });

  it('turns credentials written into the URL into basic auth and keeps them out of errors', async () => {
    const withCredentials = url.replace('http://', 'http://thund:s3cret-pw@');
    const fromUrl = new SchemaRegistryClient({ url: withCredentials });
    expect(JSON.parse((await fromUrl.schemaById(2)).schema)).toEqual(ORDER_V2_SCHEMA);
    const error = await fromUrl.schemaById(404404).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('has no schema with id 404404');
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('reads basic auth from environment variables: none when unset, an error naming a missing half', () => {
    expect(basicAuthFromEnv({})).toBeUndefined();
    expect(basicAuthFromEnv({ THUND_SCHEMA_REGISTRY_USERNAME: 'u', THUND_SCHEMA_REGISTRY_PASSWORD: 'p' })).toEqual({ username: 'u', password: 'p' });
    expect(() => basicAuthFromEnv({ THUND_SCHEMA_REGISTRY_USERNAME: 'u' })).toThrow(InvalidInputError);
    expect(() => basicAuthFromEnv({ THUND_SCHEMA_REGISTRY_USERNAME: 'u' })).toThrow(/THUND_SCHEMA_REGISTRY_PASSWORD is not set/);
  });
});
