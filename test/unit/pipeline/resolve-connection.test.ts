/**
 * Applying the environment to the catalog and storage blocks: `${NAME}` substitution, secrets
 * read from the variables `*_env` fields name, and problems that name file:line:column, the
 * field and the variable, but never a variable's value.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { substituteEnv, templateReferences } from '../../../src/pipeline/env-template.js';
import { resolveConnection, type ResolvedConnection } from '../../../src/pipeline/resolve-connection.js';
import { parseDefinitionOrThrow } from './definition-or-throw.js';

const BASE = [
  'pipeline: demo',
  'sources: { orders: { format: parquet, path: data/*.parquet } }',
  'tables: { lake.orders: {} }',
  'flows: { load: { target: lake.orders, sql: SELECT 1 AS x } }',
];
const FILE = '/specs/team/pipeline.yaml';

function resolve(env: Record<string, string>, ...block: string[]): ResolvedConnection {
  return resolveConnection(parseDefinitionOrThrow(`${[...BASE, ...block].join('\n')}\n`, FILE), env);
}

function resolveError(env: Record<string, string>, ...block: string[]): InvalidInputError {
  try {
    resolve(env, ...block);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected resolution to fail');
}

const TOKEN = 'tok-4f9b2c7e-never-print-me';
const S3_SECRET = 's3-secret/+never-print-me';

const REST_BLOCK = [
  'catalog:', //                                       5
  '  type: rest', //                                   6
  '  uri: ${REST_URI}', //                             7
  '  warehouse: ${WAREHOUSE}', //                      8
  '  auth: { type: bearer, token_env: REST_TOKEN }', // 9
  'storage:', //                                       10
  '  s3:', //                                          11
  '    endpoint: http://${S3_HOST}:9000', //           12
  '    region: us-east-1', //                          13
  '    path_style: true', //                           14
  '    access_key_id_env: S3_KEY_ID', //               15
  '    secret_access_key_env: S3_SECRET', //           16
];

const REST_ENV = {
  REST_URI: 'http://127.0.0.1:8181',
  WAREHOUSE: 's3://lake/wh',
  REST_TOKEN: TOKEN,
  S3_HOST: 'minio.internal',
  S3_KEY_ID: 'AKIDEXAMPLE',
  S3_SECRET: S3_SECRET,
};

describe('resolveConnection', () => {
  it('the default is the embedded catalog with its default warehouse', () => {
    expect(resolve({})).toEqual({ catalog: { type: 'sql' } });
  });

  it('substitutes ${NAME} and reads the secrets the *_env fields name', () => {
    expect(resolve(REST_ENV, ...REST_BLOCK)).toEqual({
      catalog: { type: 'rest', uri: 'http://127.0.0.1:8181', warehouse: 's3://lake/wh', auth: { type: 'bearer', token: TOKEN } },
      s3: {
        endpoint: 'http://minio.internal:9000',
        region: 'us-east-1',
        pathStyle: true,
        keys: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: S3_SECRET },
      },
    });
  });

  it('request timeouts of the catalog and of S3 pass through; one out of bounds is refused at its field', () => {
    const timeouts = ['catalog: { type: rest, uri: http://127.0.0.1:8181, request_timeout_ms: 5000 }', 'storage: { s3: { region: us-east-1, connect_timeout_ms: 1000, idle_timeout_ms: 2000 } }'];
    expect(resolve({}, ...timeouts)).toEqual({
      catalog: { type: 'rest', uri: 'http://127.0.0.1:8181', requestTimeoutMs: 5000 },
      s3: { region: 'us-east-1', pathStyle: false, connectTimeoutMs: 1000, idleTimeoutMs: 2000 },
    });
    expect(() => resolve({}, 'catalog: { type: rest, uri: http://127.0.0.1:8181, request_timeout_ms: 10 }')).toThrow(/request_timeout_ms must be at least 100/);
  });

  it('one spec, two stacks: only the environment differs', () => {
    const other = { ...REST_ENV, REST_URI: 'https://catalog.prod.example.com', S3_HOST: 's3.prod.example.com' };
    const resolved = resolve(other, ...REST_BLOCK);
    expect(resolved.catalog).toMatchObject({ uri: 'https://catalog.prod.example.com' });
    expect(resolved.s3?.endpoint).toBe('http://s3.prod.example.com:9000');
  });

  it('every missing variable is reported at once, at its field, by name and never by value', () => {
    const { REST_URI: _uri, REST_TOKEN: _token, S3_SECRET: _secret, ...rest } = REST_ENV;
    const error = resolveError(rest, ...REST_BLOCK);
    expect(error.message.split('\n')).toEqual([
      `${FILE}:7:8: catalog.uri: environment variable REST_URI is not set (referenced as \${REST_URI})`,
      `${FILE}:9:36: catalog.auth.token_env: environment variable REST_TOKEN is not set`,
      `${FILE}:16:28: storage.s3.secret_access_key_env: environment variable S3_SECRET is not set`,
    ]);
    expect(error.context).toMatchObject({ file: FILE, line: 7, column: 8, field: 'catalog.uri', variable: 'REST_URI' });
  });

  it('a set-but-empty secret is an error too, and no message or context carries a value', () => {
    const error = resolveError({ ...REST_ENV, REST_TOKEN: '' }, ...REST_BLOCK);
    expect(error.message).toBe(`${FILE}:9:36: catalog.auth.token_env: environment variable REST_TOKEN is empty`);
    const everything = resolveError({}, ...REST_BLOCK);
    for (const e of [error, everything]) {
      const shown = `${e.message} ${JSON.stringify(e.context)}`;
      for (const value of [TOKEN, S3_SECRET, 'AKIDEXAMPLE']) expect(shown).not.toContain(value);
    }
  });

  it('URLs must be http(s) and must not carry credentials (which are then not echoed)', () => {
    const badScheme = resolveError({ ...REST_ENV, REST_URI: 'ftp://catalog' }, ...REST_BLOCK);
    expect(badScheme.message).toBe(`${FILE}:7:8: catalog.uri: must be an http:// or https:// URL, got "ftp://catalog"`);
    const withPassword = resolveError({ ...REST_ENV, REST_URI: `http://admin:${TOKEN}@catalog:8181` }, ...REST_BLOCK);
    expect(withPassword.message).toBe(`${FILE}:7:8: catalog.uri: must not carry credentials (user:password@): name them with *_env fields instead`);
    expect(withPassword.message).not.toContain(TOKEN);
    expect(resolveError({}, 'catalog: { type: rest, uri: not a url }').message).toBe(
      `${FILE}:5:29: catalog.uri: must be an http:// or https:// URL, got "not a url"`,
    );
  });

  it('a value that is empty after substitution', () => {
    expect(resolveError({ WAREHOUSE: ' ' }, 'catalog: { type: glue, warehouse: "${WAREHOUSE}", region: r }').message).toBe(
      `${FILE}:5:35: catalog.warehouse: is empty after substituting "\${WAREHOUSE}"`,
    );
  });

  it('the embedded warehouse resolves from the spec folder, takes file: URIs, and refuses object storage', () => {
    expect(resolve({}, 'catalog: { type: sql, warehouse: ../wh, name: prod }').catalog).toEqual({
      type: 'sql',
      name: 'prod',
      warehousePath: '/specs/wh',
    });
    expect(resolve({ DATA: '/data' }, 'catalog: { type: sql, warehouse: "file://${DATA}/wh" }').catalog).toEqual({
      type: 'sql',
      warehousePath: '/data/wh',
    });
    expect(resolveError({}, 'catalog: { type: sql, warehouse: s3://bucket/wh }').message).toBe(
      `${FILE}:5:34: catalog.warehouse: the sql catalog keeps its warehouse in a local directory, got "s3://bucket/wh"; use a rest or glue catalog for object storage`,
    );
  });

  it('glue with keys and an endpoint; oauth2 and sigv4 auth', () => {
    const env = { GLUE_ENDPOINT: 'http://127.0.0.1:5000', AK: 'id', SK: 'secret', ST: 'session', CID: 'client', CS: 'client-secret' };
    expect(
      resolve(
        env,
        'catalog: { type: glue, warehouse: s3://w/h, region: us-east-1, endpoint: "${GLUE_ENDPOINT}", access_key_id_env: AK, secret_access_key_env: SK, session_token_env: ST }',
      ).catalog,
    ).toEqual({
      type: 'glue',
      warehouse: 's3://w/h',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:5000',
      keys: { accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: 'session' },
    });
    expect(
      resolve(env, 'catalog: { type: rest, uri: http://c, auth: { type: oauth2, client_id_env: CID, client_secret_env: CS, token_uri: https://idp/t } }')
        .catalog,
    ).toMatchObject({ auth: { type: 'oauth2', clientId: 'client', clientSecret: 'client-secret', tokenUri: 'https://idp/t' } });
    expect(resolve(env, 'catalog: { type: rest, uri: http://c, auth: { type: sigv4, region: eu-west-1, service: s3tables } }').catalog).toMatchObject({
      auth: { type: 'sigv4', region: 'eu-west-1', service: 's3tables' },
    });
  });
});

describe('${NAME} templates', () => {
  it('finds references and reports malformed ones', () => {
    expect(templateReferences('http://${HOST}:${PORT}/x')).toEqual({ names: ['HOST', 'PORT'] });
    expect(templateReferences('plain $text')).toEqual({ names: [] });
    expect(templateReferences('${}')).toHaveProperty('problem');
    expect(templateReferences('${a-b}')).toHaveProperty('problem');
    expect(templateReferences('x${OPEN')).toEqual({ problem: 'an unterminated "${": write ${NAME}' });
  });

  it('substitutes every reference, or names the first unset one', () => {
    expect(substituteEnv('${A}/${B}/${A}', { A: '1', B: '2' })).toEqual({ value: '1/2/1' });
    expect(substituteEnv('${A}/${B}/${C}', { A: '1' })).toEqual({ missing: 'B' });
    expect(substituteEnv('${A}', { A: '' })).toEqual({ value: '' });
  });
});
