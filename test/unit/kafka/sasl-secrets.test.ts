/** Kafka SASL secrets are registered when a client is built, OAUTHBEARER tokens as they are handed out. */
import { randomUUID } from 'node:crypto';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { expect, it } from 'vitest';
import { withSaslSecretsRegistered } from '../../../connectors/kafka/sasl-secrets.js';
import { scrubSecrets } from '../../../src/secrets.js';

const secret = (kind: string): string => `${kind}-${randomUUID()}`;

it('PLAIN and SCRAM passwords, and user:password in base64', () => {
  const settings: SASLOptions[] = [
    { mechanism: 'plain', username: 'thund', password: secret('plain') },
    { mechanism: 'scram-sha-256', username: 'thund', password: secret('scram-sha-256') },
    { mechanism: 'scram-sha-512', username: 'thund', password: secret('scram-sha-512') },
  ];
  for (const sasl of settings) {
    if (!('password' in sasl)) throw new Error('a password mechanism was expected');
    const { password } = sasl;
    expect(withSaslSecretsRegistered<Pick<KafkaConfig, 'sasl'>>({ sasl })?.sasl).toBe(sasl);
    expect(scrubSecrets(`broker said ${password} / ${Buffer.from(`thund:${password}`).toString('base64')}`)).toBe('broker said *** / ***');
  }
});

it('the AWS mechanism: access key id, secret key and session token', () => {
  const keys = { accessKeyId: secret('akid'), secretAccessKey: secret('sak'), sessionToken: secret('session') };
  withSaslSecretsRegistered<Pick<KafkaConfig, 'sasl'>>({ sasl: { mechanism: 'aws', authorizationIdentity: 'AIDA', ...keys } });
  expect(scrubSecrets(`${keys.accessKeyId} ${keys.secretAccessKey} ${keys.sessionToken}`)).toBe('*** *** ***');
});

it('OAUTHBEARER: each token the provider hands out, when it does', async () => {
  const tokens = [secret('oauth'), secret('oauth')];
  let handedOut = 0;
  const connection = withSaslSecretsRegistered<Pick<KafkaConfig, 'sasl'>>({
    sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: tokens[handedOut++] as string }) },
  });
  const sasl = connection?.sasl;
  if (sasl?.mechanism !== 'oauthbearer' || !('oauthBearerProvider' in sasl)) throw new Error('the oauthbearer settings were lost');
  expect(scrubSecrets(tokens[0] as string)).toBe(tokens[0]);
  expect(await sasl.oauthBearerProvider()).toEqual({ value: tokens[0] });
  expect(await sasl.oauthBearerProvider()).toEqual({ value: tokens[1] });
  expect(scrubSecrets(`${tokens[0]} ${tokens[1]}`)).toBe('*** ***');
});

it('no SASL: the connection is passed through as it is', () => {
  const connection: Pick<KafkaConfig, 'sasl' | 'connectionTimeout'> = { connectionTimeout: 1000 };
  expect(withSaslSecretsRegistered(connection)).toBe(connection);
  expect(withSaslSecretsRegistered(undefined)).toBeUndefined();
});
