/**
 * The Iceberg REST catalog fixture of the test stack, spoken to in plain REST JSON (no Thund code
 * in between): a namespace and a two-column table are created, the table loads back with the
 * schema it was given, and its metadata file really is in MinIO where metadata-location says.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Client } from '../stack/s3-env.js';

interface JsonResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

let uri: string;
let s3: S3Client;
let bucket: string;
let prefix = '';

async function rest(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<JsonResponse> {
  const response = await fetch(`${uri}/v1${prefix}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'name', required: false, type: 'string' },
  ],
};

beforeAll(async () => {
  uri = requireServiceEnv('THUND_TEST_REST_URI');
  bucket = requireServiceEnv('THUND_TEST_S3_BUCKET');
  s3 = testS3Client();
});

afterAll(() => s3?.destroy());

/** The catalog may ask clients to put a prefix after /v1 (the config's `prefix` override). */
async function usePrefixFromConfig(): Promise<void> {
  prefix = '';
  const config = await rest('GET', '/config');
  const overrides = config.body['overrides'] as Record<string, string> | undefined;
  prefix = overrides?.['prefix'] === undefined ? '' : `/${overrides['prefix']}`;
}

describe('iceberg rest catalog fixture (test stack)', () => {
  const namespace = `it_${randomUUID().replaceAll('-', '')}`;

  it('answers GET /v1/config', async () => {
    const config = await rest('GET', '/config');
    expect(config.status).toBe(200);
    expect(config.body).toHaveProperty('defaults');
    expect(config.body).toHaveProperty('overrides');
    expect(config.body['endpoints']).toContain('POST /v1/{prefix}/namespaces/{namespace}/tables');
  });

  it('creates a namespace, creates a table, loads it back, and its metadata file is in MinIO', async () => {
    await usePrefixFromConfig();
    const created = await rest('POST', '/namespaces', { namespace: [namespace], properties: { owner: 'thund-it' } });
    expect(created.status).toBe(200);
    expect(created.body['namespace']).toEqual([namespace]);

    const table = await rest('POST', `/namespaces/${namespace}/tables`, { name: 'people', schema });
    expect(table.status).toBe(200);

    const loaded = await rest('GET', `/namespaces/${namespace}/tables/people`);
    expect(loaded.status).toBe(200);
    const metadataLocation = loaded.body['metadata-location'] as string;
    expect(metadataLocation.startsWith(`s3://${bucket}/`)).toBe(true);
    expect(metadataLocation).toMatch(/\.metadata\.json$/);
    expect(metadataLocation).toBe(table.body['metadata-location']);

    const metadata = loaded.body['metadata'] as Record<string, unknown>;
    expect(metadata['location']).toSatisfy((location: string) => location.startsWith(`s3://${bucket}/`));
    const schemas = metadata['schemas'] as Array<{ fields: unknown[] }>;
    expect(schemas).toHaveLength(1);
    expect(schemas[0]!.fields).toEqual(schema.fields.map((field) => ({ ...field })));

    // The file the catalog points at exists in the object store and is this table's metadata.
    const key = metadataLocation.slice(`s3://${bucket}/`.length);
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const stored = JSON.parse(await object.Body!.transformToString()) as Record<string, unknown>;
    expect(stored['table-uuid']).toBe(metadata['table-uuid']);
    expect(stored['format-version']).toBe(metadata['format-version']);
    expect(stored['location']).toBe(metadata['location']);
  });

  it('refuses a duplicate table and reports a missing one', async () => {
    const duplicate = await rest('POST', `/namespaces/${namespace}/tables`, { name: 'people', schema });
    expect(duplicate.status).toBe(409);
    expect((duplicate.body['error'] as { type: string }).type).toBe('AlreadyExistsException');

    const missing = await rest('GET', `/namespaces/${namespace}/tables/nobody`);
    expect(missing.status).toBe(404);
    expect((missing.body['error'] as { type: string }).type).toBe('NoSuchTableException');
  });
});
