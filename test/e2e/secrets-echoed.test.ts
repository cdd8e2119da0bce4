/**
 * Servers that repeat the request — every header and the body — in their error message, for
 * each way Thund authenticates: the built CLI's output and the in-process clients' errors must
 * name the server and the status and keep the server's words, and hold none of the secrets sent
 * (nor their URL-encoded or base64 forms).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RestHttp } from '../../catalog/rest/http.js';
import { SchemaRegistryClient } from '../../connectors/kafka/schema-registry-client.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { ThundError } from '../../src/errors.js';
import { QUICKSTART_INPUT, QUICKSTART_SPEC } from '../interop/quickstart-expected.js';
import { thundAsync } from './cli.js';
import { startEchoServer, type EchoServer, type ReceivedRequest, type RouteAnswer } from './echo-server.js';

let work: string;
const servers: EchoServer[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-secrets-echoed-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A random secret with the characters URL- and form-encoding change. */
const secret = (kind: string): string => `${kind}+${randomUUID()}/=&`;

/** Every form a secret may travel in; a test fails naming the secret's kind and form, not its value. */
function leaks(output: string, secrets: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const [kind, value] of Object.entries(secrets)) {
    const base64 = Buffer.from(value).toString('base64');
    const forms: Record<string, string> = {
      raw: value,
      'url-encoded': encodeURIComponent(value),
      'form-encoded': new URLSearchParams({ v: value }).toString().slice(2),
      base64: base64.replace(/=+$/, ''),
      base64url: Buffer.from(value).toString('base64url'),
    };
    for (const [form, text] of Object.entries(forms)) if (output.includes(text)) found.push(`${kind} (${form})`);
  }
  return found;
}

async function echoServer(...args: Parameters<typeof startEchoServer>): Promise<EchoServer> {
  const server = await startEchoServer(...args);
  servers.push(server);
  return server;
}

/** The quickstart pipeline (input by absolute path unless `path` is given) with `blocks` added. */
function writeSpec(name: string, blocks: string, path = QUICKSTART_INPUT): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'pipeline.yaml');
  const quickstart = readFileSync(QUICKSTART_SPEC, 'utf8').replace('path: data/orders.parquet', `path: ${path}`);
  writeFileSync(file, `${quickstart}\n${blocks}`);
  return file;
}

async function runFailing(spec: string, env: Readonly<Record<string, string>>): Promise<string> {
  const run = await thundAsync(['run', spec, '--warehouse', join(work, 'warehouse')], work, env);
  expect(run.status).toBe(1);
  return run.stdout + run.stderr;
}

const awsKeysEnv = (prefix: string): Record<string, string> => ({
  [`${prefix}_KEY_ID`]: secret('akid'),
  [`${prefix}_SECRET`]: secret('sak'),
  [`${prefix}_SESSION`]: secret('session'),
});

const awsKeysSpec = (prefix: string): string =>
  `access_key_id_env: ${prefix}_KEY_ID, secret_access_key_env: ${prefix}_SECRET, session_token_env: ${prefix}_SESSION`;

/** thund run with OAuth2 client credentials against `server`; the output of the failed run. */
async function runOAuth2(name: string, server: EchoServer): Promise<{ env: Record<string, string>; output: string }> {
  const env = { THUND_E2E_CLIENT_ID: 'thund-e2e', THUND_E2E_CLIENT_SECRET: secret('client-secret') };
  const auth = '{ type: oauth2, client_id_env: THUND_E2E_CLIENT_ID, client_secret_env: THUND_E2E_CLIENT_SECRET }';
  const spec = writeSpec(name, `catalog: { type: rest, uri: "${server.url}", auth: ${auth} }\n`);
  return { env, output: await runFailing(spec, env) };
}

describe('thund run against a REST catalog that echoes the request', () => {
  it('bearer token: the error names the catalog and HTTP 401, keeps the server message, and shows no token', async () => {
    const server = await echoServer('iceberg-rest', 401);
    const env = { THUND_E2E_TOKEN: secret('token') };
    const spec = writeSpec('bearer', `catalog: { type: rest, uri: "${server.url}", auth: { type: bearer, token_env: THUND_E2E_TOKEN } }\n`);
    const output = await runFailing(spec, env);
    expect(output).toContain(`REST catalog at ${server.url}`);
    expect(output).toContain('HTTP 401');
    expect(output).toContain('bad request GET /v1/config');
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${env.THUND_E2E_TOKEN}`);
    expect(leaks(output, env)).toEqual([]);
  });

  it('OAuth2: neither the client secret nor the tokens obtained at run time (the first and the one refreshed after a 401) are shown', async () => {
    const issued: string[] = [];
    const tokenEndpoint = (request: ReceivedRequest): RouteAnswer | undefined => {
      if (request.url !== '/v1/oauth/tokens') return undefined;
      issued.push(secret('access-token'));
      return { status: 200, body: JSON.stringify({ access_token: issued.at(-1), token_type: 'bearer', expires_in: 3600 }) };
    };
    const server = await echoServer('iceberg-rest', 401, tokenEndpoint);
    const { env, output } = await runOAuth2('oauth2', server);
    expect(issued).toHaveLength(2);
    expect(output).toContain(`REST catalog at ${server.url}`);
    expect(output).toContain('HTTP 401');
    expect(leaks(output, { clientSecret: env['THUND_E2E_CLIENT_SECRET'] as string, firstToken: issued[0] as string, refreshedToken: issued[1] as string })).toEqual([]);
  });

  it('OAuth2: a token endpoint that refuses and echoes the form body does not show the client secret in its encoded form', async () => {
    const refuseToken = (request: ReceivedRequest): RouteAnswer => ({
      status: 400,
      body: JSON.stringify({ error: 'invalid_client', error_description: `bad form ${request.body}` }),
    });
    const server = await echoServer('iceberg-rest', 401, refuseToken);
    const { env, output } = await runOAuth2('oauth2-refused', server);
    expect(output).toContain(`${server.url}/v1/oauth/tokens`);
    expect(output).toContain('HTTP 400');
    expect(output).toContain('invalid_client: bad form grant_type=client_credentials');
    expect(leaks(output, { clientSecret: env['THUND_E2E_CLIENT_SECRET'] as string })).toEqual([]);
  });

  it('SigV4: the access key id and session token the signed headers carry are not shown, nor the secret key', async () => {
    const server = await echoServer('iceberg-rest', 403);
    const env = awsKeysEnv('THUND_E2E_SIGV4');
    const spec = writeSpec('sigv4', `catalog: { type: rest, uri: "${server.url}", auth: { type: sigv4, region: us-east-1, ${awsKeysSpec('THUND_E2E_SIGV4')} } }\n`);
    const output = await runFailing(spec, env);
    expect(output).toContain(`REST catalog at ${server.url}`);
    expect(output).toContain('HTTP 403');
    expect(server.requests[0]?.headers['x-amz-security-token']).toBe(env.THUND_E2E_SIGV4_SESSION);
    expect(leaks(output, env)).toEqual([]);
  });
});

describe('thund run against AWS endpoints that echo the request', () => {
  it('Glue: the error names Glue and the status, and shows none of the keys', async () => {
    const server = await echoServer('aws-json', 400);
    const env = awsKeysEnv('THUND_E2E_GLUE');
    const spec = writeSpec(
      'glue',
      `catalog: { type: glue, warehouse: "${join(work, 'glue-wh')}", region: us-east-1, endpoint: "${server.url}", ${awsKeysSpec('THUND_E2E_GLUE')} }\n`,
    );
    const output = await runFailing(spec, env);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(output).toContain('Glue failed to');
    expect(output).toContain('HTTP 400');
    expect(output).toContain('bad request POST /');
    expect(leaks(output, env)).toEqual([]);
  });

  it('S3 (an s3:// source with static keys): the error names the location and the status, and shows none of the keys', async () => {
    const server = await echoServer('s3-xml', 403);
    const env = awsKeysEnv('THUND_E2E_S3');
    const spec = writeSpec(
      's3',
      `storage: { s3: { endpoint: "${server.url}", region: us-east-1, path_style: true, ${awsKeysSpec('THUND_E2E_S3')} } }\n`,
      's3://thund-e2e/orders/*.parquet',
    );
    const output = await runFailing(spec, env);
    expect(output).toContain('s3://thund-e2e/orders/');
    expect(output).toContain('HTTP 403');
    expect(output).toContain('bad request GET /thund-e2e');
    expect(leaks(output, env)).toEqual([]);
  });

  it("keys from the AWS SDK's default chain (the environment), which Thund never reads itself, are not shown either (S3 and Glue)", async () => {
    const env = {
      AWS_ACCESS_KEY_ID: `AKIA${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`,
      AWS_SECRET_ACCESS_KEY: secret('sak'),
      AWS_SESSION_TOKEN: secret('session'),
    };
    const s3 = await echoServer('s3-xml', 403);
    const s3Spec = writeSpec('s3-chain', `storage: { s3: { endpoint: "${s3.url}", region: us-east-1, path_style: true } }\n`, 's3://thund-e2e/orders/*.parquet');
    const s3Output = await runFailing(s3Spec, env);
    expect(s3Output).toContain('HTTP 403');
    expect(s3.requests[0]?.headers['x-amz-security-token']).toBe(env.AWS_SESSION_TOKEN);
    expect(leaks(s3Output, env)).toEqual([]);

    const glue = await echoServer('aws-json', 400);
    const glueSpec = writeSpec('glue-chain', `catalog: { type: glue, warehouse: "${join(work, 'glue-chain-wh')}", region: us-east-1, endpoint: "${glue.url}" }\n`);
    const glueOutput = await runFailing(glueSpec, env);
    expect(glueOutput).toContain('HTTP 400');
    expect(leaks(glueOutput, env)).toEqual([]);
  });
});

describe('in-process clients against servers that echo the request', () => {
  const failure = async (promise: Promise<unknown>): Promise<ThundError> => {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ThundError);
    return error as ThundError;
  };

  /** The message, the context and every message and stack down the cause chain. */
  const everything = (error: Error): string => {
    const parts: string[] = [];
    for (let current: unknown = error; current instanceof Error; current = current.cause) parts.push(current.message, current.stack ?? '');
    return `${parts.join('\n')}\n${JSON.stringify((error as ThundError).context)}`;
  };

  it('a per-table bearer token (a load answer\'s config.token) is not shown', async () => {
    const server = await echoServer('iceberg-rest', 403);
    const token = secret('table-token');
    const http = new RestHttp({ uri: server.url });
    const error = await failure(http.request({ method: 'GET', path: '/namespaces/db/tables/t', operation: 'read', bearer: token }));
    expect(error.message).toContain('HTTP 403');
    expect(error.message).toContain('bad request GET /v1/namespaces/db/tables/t');
    expect(leaks(everything(error), { token })).toEqual([]);
  });

  it('schema registry with basic auth: the error names the registry, the status and its message, without the password or the basic pair', async () => {
    const server = await echoServer('schema-registry', 401);
    const password = secret('registry-password');
    const client = new SchemaRegistryClient({ url: server.url, auth: { username: 'thund-e2e', password } });
    const error = await failure(client.schemaById(7));
    expect(error.message).toContain(`Schema registry at ${server.url}`);
    expect(error.message).toContain('401');
    expect(error.message).toContain('bad request GET /schemas/ids/7');
    expect(leaks(everything(error), { password, basicPair: `thund-e2e:${password}` })).toEqual([]);
  });

  it('schema registry credentials written in its URL are not shown either', async () => {
    const server = await echoServer('schema-registry', 403);
    const password = secret('registry-password');
    const url = server.url.replace('http://', `http://thund-e2e:${encodeURIComponent(password)}@`);
    const error = await failure(new SchemaRegistryClient({ url }).schemaById(8));
    expect(error.message).toContain('403');
    expect(error.message).toContain('bad request GET /schemas/ids/8');
    expect(leaks(everything(error), { password, basicPair: `thund-e2e:${password}` })).toEqual([]);
  });

  it('S3FileIO with static keys: the storage error and its cause chain hold none of the keys', async () => {
    const server = await echoServer('s3-xml', 403);
    const keys = { accessKeyId: secret('akid'), secretAccessKey: secret('sak'), sessionToken: secret('session') };
    const io = new S3FileIO({ endpoint: server.url, region: 'us-east-1', forcePathStyle: true, credentials: keys, maxAttempts: 1 });
    try {
      const error = await failure(io.read('s3://thund-e2e/t/metadata/v1.metadata.json'));
      expect(error.message).toContain('s3://thund-e2e/t/metadata/v1.metadata.json');
      expect(error.message).toContain('HTTP 403');
      expect(leaks(everything(error), keys)).toEqual([]);
    } finally {
      io.close();
    }
  });
});
