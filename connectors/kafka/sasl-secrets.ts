/**
 * Kafka's SASL settings with their secrets registered (src/secrets.ts): the password of
 * PLAIN/SCRAM, the AWS keys of the `aws` mechanism and every OAUTHBEARER token as its provider
 * hands it out, so no error or log line shows them. Every kafkajs client is built through this.
 */
import type { KafkaConfig } from 'kafkajs';
import { registerAwsKeys, registerBasicAuth, registerShortLivedSecret } from '../../src/secrets.js';

type Connection = { readonly sasl?: KafkaConfig['sasl'] };

/** The connection to build a client with: secrets registered, an OAUTHBEARER provider wrapped. */
export function withSaslSecretsRegistered<C extends Connection>(connection: C | undefined): C | undefined {
  registerSaslSecrets(connection);
  const sasl = connection?.sasl;
  if (connection === undefined || sasl === undefined || sasl.mechanism !== 'oauthbearer' || !('oauthBearerProvider' in sasl)) return connection;
  const provider = sasl.oauthBearerProvider;
  const registering = async (): Promise<Awaited<ReturnType<typeof provider>>> => {
    const token = await provider();
    registerShortLivedSecret(token.value);
    return token;
  };
  return { ...connection, sasl: { ...sasl, oauthBearerProvider: registering } };
}

/** The fixed secrets only: for a thread that sends the settings on to the one building the client. */
export function registerSaslSecrets(connection: Connection | undefined): void {
  const sasl = connection?.sasl;
  // A custom mechanism (authenticationProvider) keeps its secrets to itself.
  if (sasl === undefined || 'authenticationProvider' in sasl) return;
  if (sasl.mechanism === 'plain' || sasl.mechanism === 'scram-sha-256' || sasl.mechanism === 'scram-sha-512') registerBasicAuth(sasl.username, sasl.password);
  if (sasl.mechanism === 'aws') registerAwsKeys(sasl);
}
