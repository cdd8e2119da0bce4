/**
 * The spec's `catalog` and `storage` blocks: what they parse into, and that every error names
 * file:line:column and the field, and never echoes what may be a secret.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import type { PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { parseDefinitionOrThrow } from './definition-or-throw.js';

/** Lines 1-12: a valid pipeline; the blocks under test start on line 13. */
const BASE = [
  'pipeline: demo',
  'sources:',
  '  orders: { format: parquet, path: data/*.parquet }',
  'tables:',
  '  lake.orders: { mode: append }',
  'flows:',
  '  load_orders:',
  '    target: lake.orders',
  '    sql: SELECT * FROM orders',
  '# connection',
  '#',
  '#',
];

const FILE = '/specs/pipeline.yaml';
const spec = (...block: string[]): PipelineDefinition => parseDefinitionOrThrow(`${[...BASE, ...block].join('\n')}\n`, FILE);

function specError(...block: string[]): InvalidInputError {
  try {
    spec(...block);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected the spec to be rejected');
}

describe('catalog and storage blocks: valid', () => {
  it('default to the embedded catalog and no storage', () => {
    const parsed = spec();
    expect(parsed.catalog).toEqual({ type: 'sql' });
    expect(parsed.storage).toEqual({});
  });

  it('a rest catalog with bearer auth keeps variable names and positions, not values', () => {
    const parsed = spec(
      'catalog:', //                           13
      '  type: rest', //                       14
      '  name: lake', //                       15
      '  uri: ${REST_URI}/api', //             16
      '  warehouse: s3://bucket/wh', //        17
      '  auth:', //                            18
      '    type: bearer', //                   19
      '    token_env: THUND_REST_TOKEN', //    20
    );
    const at = (line: number, column: number, field: string) => ({ file: FILE, line, column, field });
    expect(parsed.catalog).toEqual({
      type: 'rest',
      name: { template: 'lake', at: at(15, 9, 'catalog.name') },
      uri: { template: '${REST_URI}/api', at: at(16, 8, 'catalog.uri') },
      warehouse: { template: 's3://bucket/wh', at: at(17, 14, 'catalog.warehouse') },
      auth: { type: 'bearer', token: { variable: 'THUND_REST_TOKEN', at: at(20, 16, 'catalog.auth.token_env') } },
    });
  });

  it('a rest catalog may ask for vended credentials; any other delegation is refused at its line', () => {
    const parsed = spec('catalog:', '  type: rest', '  uri: http://127.0.0.1:8181', '  access_delegation: vended-credentials');
    expect(parsed.catalog).toMatchObject({ type: 'rest', accessDelegation: 'vended-credentials' });
    const error = specError('catalog:', '  type: rest', '  uri: http://127.0.0.1:8181', '  access_delegation: remote-signing');
    expect(error.message).toContain(`${FILE}:16:`);
    expect(error.message).toContain('access_delegation must be one of: vended-credentials');
  });

  it('oauth2 and sigv4 auth, a glue catalog, and storage.s3 with keys', () => {
    const oauth = spec(
      'catalog:',
      '  type: rest',
      '  uri: https://catalog.example.com',
      '  auth: { type: oauth2, client_id_env: CID, client_secret_env: CSECRET, token_uri: https://idp.example.com/token, scope: lake }',
    ).catalog;
    expect(oauth.type === 'rest' && oauth.auth).toMatchObject({
      type: 'oauth2',
      clientId: { variable: 'CID' },
      clientSecret: { variable: 'CSECRET' },
      tokenUri: { template: 'https://idp.example.com/token' },
      scope: { template: 'lake' },
    });
    const sigv4 = spec('catalog:', '  type: rest', '  uri: https://glue.us-east-1.amazonaws.com/iceberg', '  auth: { type: sigv4, region: us-east-1 }').catalog;
    expect(sigv4.type === 'rest' && sigv4.auth).toMatchObject({ type: 'sigv4', region: { template: 'us-east-1' } });
    expect(sigv4.type === 'rest' && sigv4.auth !== undefined && 'keys' in sigv4.auth).toBe(false);

    const parsed = spec(
      'catalog: { type: glue, warehouse: s3://lake/wh, region: eu-west-1, endpoint: "${GLUE_ENDPOINT}" }',
      'storage:',
      '  s3:',
      '    endpoint: http://127.0.0.1:9000',
      '    region: us-east-1',
      '    path_style: true',
      '    access_key_id_env: AWS_ACCESS_KEY_ID',
      '    secret_access_key_env: AWS_SECRET_ACCESS_KEY',
    );
    expect(parsed.catalog).toMatchObject({
      type: 'glue',
      warehouse: { template: 's3://lake/wh' },
      region: { template: 'eu-west-1' },
      endpoint: { template: '${GLUE_ENDPOINT}' },
    });
    expect(parsed.storage.s3).toMatchObject({
      endpoint: { template: 'http://127.0.0.1:9000' },
      region: { template: 'us-east-1' },
      pathStyle: true,
      keys: {
        accessKeyId: { variable: 'AWS_ACCESS_KEY_ID', at: { line: 19, column: 24, field: 'storage.s3.access_key_id_env' } },
        secretAccessKey: { variable: 'AWS_SECRET_ACCESS_KEY', at: { line: 20, column: 28 } },
      },
    });
  });

  it('path_style defaults to false and keys are optional (the SDK default chain)', () => {
    expect(spec('storage: { s3: { region: us-east-1 } }').storage).toEqual({
      s3: { region: { template: 'us-east-1', at: { file: FILE, line: 13, column: 26, field: 'storage.s3.region' } }, pathStyle: false },
    });
  });
});

describe('catalog and storage blocks: errors name file:line:column and the field', () => {
  it('unknown catalog type', () => {
    expect(specError('catalog:', '  type: hive').message).toBe(`${FILE}:14:9: catalog.type: type must be one of: sql, rest, glue, got "hive"`);
  });

  it('missing type', () => {
    expect(specError('catalog:', '  uri: http://x').message).toBe(`${FILE}:13:1: catalog.type: missing required field "type" (sql, rest, glue)`);
  });

  it('an empty or scalar catalog block', () => {
    expect(specError('catalog:').message).toBe(`${FILE}:13:1: catalog: catalog must be a mapping with a type (sql, rest, glue)`);
    expect(specError('catalog: rest').message).toBe(`${FILE}:13:10: catalog: catalog must be a mapping with a type (sql, rest, glue), got "rest"`);
  });

  it('a rest catalog without uri points at the block', () => {
    expect(specError('catalog:', '  type: rest').message).toBe(`${FILE}:13:1: catalog: missing required field "uri"`);
  });

  it('a field of another catalog type says which type has it', () => {
    expect(specError('catalog:', '  type: sql', '  uri: http://x').message).toBe(
      `${FILE}:15:3: catalog.uri: "uri" is a field of a rest catalog, not of a sql catalog`,
    );
    expect(specError('catalog:', '  type: rest', '  uri: http://x', '  region: us-east-1').message).toBe(
      `${FILE}:16:3: catalog.region: "region" of a rest catalog belongs under auth (type: sigv4)`,
    );
    expect(specError('catalog:', '  type: sql', '  endpoint: http://x').message).toBe(
      `${FILE}:15:3: catalog.endpoint: "endpoint" is a field of a glue catalog, not of a sql catalog`,
    );
    expect(specError('catalog: { type: sql, secret_access_key: abc }').message).toBe(
      `${FILE}:13:23: catalog.secret_access_key: "secret_access_key" must not be written in the spec: put it in an environment variable and name that variable in storage.s3 (secret_access_key_env: NAME)`,
    );
  });

  it('a misspelt field gets a suggestion', () => {
    expect(specError('catalog:', '  type: rest', '  uri: http://x', '  warehous: w').message).toMatch(
      new RegExp(`^${FILE}:16:3: catalog\\.warehous: unknown field "warehous" in a rest catalog \\(did you mean warehouse\\?\\); allowed: type, name, uri, warehouse, prefix, properties, auth, access_delegation, request_timeout_ms$`),
    );
  });

  it('glue needs warehouse and region', () => {
    const messages = specError('catalog:', '  type: glue').message.split('\n');
    expect(messages).toEqual([`${FILE}:13:1: catalog: missing required field "warehouse"`, `${FILE}:13:1: catalog: missing required field "region"`]);
  });

  it('unknown auth type, missing auth type, missing token_env', () => {
    expect(specError('catalog:', '  type: rest', '  uri: http://x', '  auth:', '    type: basic').message).toBe(
      `${FILE}:17:11: catalog.auth.type: type must be one of: bearer, oauth2, sigv4, got "basic"`,
    );
    expect(specError('catalog:', '  type: rest', '  uri: http://x', '  auth: { token_env: T }').message).toBe(
      `${FILE}:16:3: catalog.auth.type: missing required field "type" (bearer, oauth2, sigv4)`,
    );
    expect(specError('catalog:', '  type: rest', '  uri: http://x', '  auth:', '    type: bearer').message).toBe(
      `${FILE}:16:3: catalog.auth: missing required field "token_env"`,
    );
  });

  it('half an AWS key pair', () => {
    expect(specError('storage:', '  s3:', '    region: us-east-1', '    access_key_id_env: KEY_ID').message).toBe(
      `${FILE}:16:24: storage.s3.access_key_id_env: access_key_id_env needs secret_access_key_env beside it`,
    );
    expect(specError('catalog: { type: glue, warehouse: s3://w/h, region: r, session_token_env: TOKEN }').message).toMatch(
      new RegExp(`^${FILE}:13:\\d+: catalog\\.session_token_env: session_token_env needs access_key_id_env and secret_access_key_env`),
    );
  });

  it('bad ${} references', () => {
    expect(specError('catalog: { type: rest, uri: "${lower}" }').message).toBe(
      `${FILE}:13:29: catalog.uri: uri has "\${lower}" is not a valid reference: write \${NAME} with an upper-case environment variable name, got "\${lower}"`,
    );
    expect(specError('catalog: { type: rest, uri: "http://${HOST" }').message).toMatch(
      new RegExp(`^${FILE}:13:29: catalog\\.uri: uri has an unterminated "\\$\\{"`),
    );
  });

  it('wrong value types', () => {
    expect(specError('storage:', '  s3:', '    region: us-east-1', '    path_style: yes please').message).toBe(
      `${FILE}:16:17: storage.s3.path_style: path_style must be true or false, got "yes please"`,
    );
    expect(specError('catalog: { type: rest, uri: 8181 }').message).toBe(`${FILE}:13:29: catalog.uri: uri must be a text value, got 8181`);
    expect(specError('storage:', '  gcs: {}').message).toMatch(new RegExp(`^${FILE}:14:3: storage\\.gcs: unknown field "gcs" in storage; allowed: s3$`));
  });
});

describe('secrets are never written in the spec, and never echoed', () => {
  const SECRET = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.s1gnature';

  it('an inline token is an error pointing at the key and telling to use token_env', () => {
    const error = specError('catalog:', '  type: rest', '  uri: http://x', '  auth:', '    type: bearer', `    token: ${SECRET}`);
    expect(error.message.split('\n')).toEqual([
      `${FILE}:16:3: catalog.auth: missing required field "token_env"`,
      `${FILE}:18:5: catalog.auth.token: "token" must not be written in the spec: put it in an environment variable and name that variable with token_env`,
    ]);
    expect(error.message).not.toContain(SECRET);
    expect(JSON.stringify(error.context)).not.toContain(SECRET);
  });

  it('inline client_secret, secret_access_key and a token on the catalog itself', () => {
    const oauth = specError('catalog:', '  type: rest', '  uri: http://x', '  auth:', '    type: oauth2', '    client_id_env: CID', `    client_secret: ${SECRET}`);
    expect(oauth.message.split('\n')).toContain(
      `${FILE}:19:5: catalog.auth.client_secret: "client_secret" must not be written in the spec: put it in an environment variable and name that variable with client_secret_env`,
    );
    const s3 = specError('storage:', '  s3:', '    region: r', '    access_key_id_env: K', `    secret_access_key: ${SECRET}`);
    expect(s3.message.split('\n')).toContain(
      `${FILE}:17:5: storage.s3.secret_access_key: "secret_access_key" must not be written in the spec: put it in an environment variable and name that variable with secret_access_key_env`,
    );
    const onCatalog = specError('catalog:', '  type: rest', '  uri: http://x', `  token: ${SECRET}`, `  password: ${SECRET}`);
    expect(onCatalog.message.split('\n')).toEqual([
      `${FILE}:16:3: catalog.token: "token" must not be written in the spec: put it in an environment variable and name that variable in auth: { type: bearer, token_env: NAME }`,
      `${FILE}:17:3: catalog.password: "password": secrets are never written in the spec; name the environment variable that holds it with a *_env field`,
    ]);
    for (const error of [oauth, s3, onCatalog]) expect(error.message).not.toContain(SECRET);
  });

  it('a secret pasted into a *_env field is rejected without being echoed', () => {
    const error = specError('catalog:', '  type: rest', '  uri: http://x', '  auth:', '    type: bearer', `    token_env: ${SECRET}`);
    expect(error.message).toBe(
      `${FILE}:18:16: catalog.auth.token_env: token_env must be the NAME of an environment variable (upper-case letters, digits and "_"), not the secret itself`,
    );
    const numeric = specError('storage:', '  s3:', '    region: r', '    access_key_id_env: 123456789', '    secret_access_key_env: S');
    expect(numeric.message).toBe(`${FILE}:16:24: storage.s3.access_key_id_env: access_key_id_env must be the name of an environment variable`);
    expect(numeric.message).not.toContain('123456789');
  });
});
