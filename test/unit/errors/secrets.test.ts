/**
 * The secret registry: every form a registered value travels in is scrubbed to `***` (never its
 * length or a prefix), errors are scrubbed when made (message, context, cause chain), and
 * runtime credentials are bounded while configured ones stay.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StorageError, ThundError } from '../../../src/errors.js';
import { registerAwsKeys, registerBasicAuth, registerSecret, registerShortLivedSecret, scrubSecrets } from '../../../src/secrets.js';

const secret = (kind: string): string => `${kind}-${randomUUID()} +/=&"\\`;

describe('scrubSecrets', () => {
  it('replaces a registered value in every form it travels in, and only with ***', () => {
    const value = secret('token');
    registerSecret(value);
    const bytes = Buffer.from(value);
    const forms = [
      value,
      `Bearer ${value}`,
      encodeURIComponent(value),
      new URLSearchParams({ client_secret: value }).toString(),
      JSON.stringify({ token: value }),
      bytes.toString('base64'),
      bytes.toString('base64url'),
    ];
    for (const form of forms) {
      const scrubbed = scrubSecrets(`server said: ${form}.`);
      expect(scrubbed).toContain('***');
      expect(scrubbed).not.toContain(value.slice(0, 8));
      expect(scrubbed).not.toMatch(/\d{2,} (chars|characters)/);
    }
    expect(scrubSecrets(`x ${value} y`)).toBe('x *** y');
  });

  it("basic auth: the password and the base64 of user:password an Authorization header carries", () => {
    const password = secret('password');
    registerBasicAuth('alice', password);
    const header = `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`;
    expect(scrubSecrets(`authorization=${header}`)).toBe('authorization=Basic ***');
    expect(scrubSecrets(`https://alice:${encodeURIComponent(password)}@registry`)).toBe('https://alice:***@registry');
  });

  it('a value that contains another registered one is replaced whole', () => {
    const inner = `inner-${randomUUID()}`;
    registerSecret(inner);
    registerSecret(`${inner}-outer`);
    expect(scrubSecrets(`[${inner}-outer]`)).toBe('[***]');
  });

  it('AWS keys: access key id, secret key and session token', () => {
    const keys = { accessKeyId: secret('akid'), secretAccessKey: secret('sak'), sessionToken: secret('session') };
    registerAwsKeys(keys);
    expect(scrubSecrets(`${keys.accessKeyId} ${keys.secretAccessKey} ${keys.sessionToken}`)).toBe('*** *** ***');
  });

  it('keeps the newest 1000 runtime credentials and every configured secret', () => {
    const configured = secret('configured');
    registerSecret(configured);
    const tokens = Array.from({ length: 1001 }, () => `rt-${randomUUID()}`);
    for (const token of tokens) registerShortLivedSecret(token);
    expect(scrubSecrets(tokens[0] as string)).toBe(tokens[0]);
    expect(scrubSecrets(`${tokens[1]} ${tokens[1000]} ${configured}`)).toBe('*** *** ***');
  });

  it('a very short secret is replaced only where it stands alone, so messages stay readable', () => {
    registerSecret('t1');
    expect(scrubSecrets('Cannot open the catalog at http://127.0.0.1 with Bearer t1')).toBe('Cannot open the catalog at http://127.0.0.1 with Bearer ***');
    expect(scrubSecrets('token=t1&x=t12')).toBe('token=***&x=t12');
  });

  it('leaves text alone when it holds no secret', () => {
    expect(scrubSecrets('REST catalog GET /v1/config failed with HTTP 401')).toBe('REST catalog GET /v1/config failed with HTTP 401');
  });
});

describe('errors are scrubbed when made', () => {
  it('message, context and the whole cause chain (messages and stacks)', () => {
    const token = secret('token');
    registerShortLivedSecret(token);
    const root = new Error(`socket closed after Bearer ${token}`);
    const middle = new TypeError(`fetch failed: ${token}`, { cause: root });
    const error = new StorageError(`Cannot read s3://b/k: AccessDenied: echo ${token} (HTTP 403)`, { cause: middle, context: { header: `Bearer ${token}`, status: 403 } });
    expect(error.message).toBe('Cannot read s3://b/k: AccessDenied: echo *** (HTTP 403)');
    expect(error.context).toEqual({ header: 'Bearer ***', status: 403 });
    const chain: string[] = [];
    for (let current: unknown = error; current instanceof Error; current = current.cause) chain.push(current.message, current.stack ?? '');
    expect(chain.join('\n')).not.toContain(token);
    expect(error.cause).toBe(middle);
    expect(root.message).toBe('socket closed after Bearer ***');
  });

  it('a subclass keeps its own name and code', () => {
    const error = new ThundError('REST_401', 'refused');
    expect([error.name, error.code, error.message]).toEqual(['ThundError', 'REST_401', 'refused']);
  });
});
