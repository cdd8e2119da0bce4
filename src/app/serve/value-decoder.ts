/**
 * The decoder `thund serve` reads record values with, from `value_format`: JSON objects,
 * Confluent Avro through the schema registry, or Debezium envelopes (JSON or Avro) landed as
 * row images with their op in a column. The registry's URL and credentials are read from the
 * environment variables the settings name; errors name those variables, never their values.
 */
import { ConfluentAvroDecoder } from '../../../connectors/kafka/avro-decoder.js';
import type { ValueColumnTypes } from '../../../connectors/kafka/avro-logical-columns.js';
import { DebeziumRowDecoder } from '../../../connectors/kafka/debezium-row-decoder.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { JsonSafeDecoder } from '../../../connectors/kafka/json-safe-values.js';
import type { RecordDecoder } from '../../../connectors/kafka/record-decoder.js';
import { schemaRegistryFromEnv } from '../../../connectors/kafka/schema-registry-client.js';
import { InvalidInputError } from '../../errors.js';
import type { ServeSettings } from './serve-config.js';

/** columnTypes: for Avro, the types its writer schemas fix (logical types), used when serve creates the table. */
export type ValueDecoder = RecordDecoder<Record<string, unknown>> & Partial<ValueColumnTypes>;

export function valueDecoder(settings: ServeSettings, env: Readonly<Record<string, string | undefined>>): ValueDecoder {
  switch (settings.valueFormat) {
    case 'json':
      return new JsonDecoder();
    case 'avro':
      return new JsonSafeDecoder(avroDecoder(settings, env));
    case 'debezium-json':
      return new DebeziumRowDecoder(new JsonDecoder(), settings.debeziumOpColumn);
    case 'debezium-avro':
      return new JsonSafeDecoder(new DebeziumRowDecoder(avroDecoder(settings, env), settings.debeziumOpColumn));
  }
}

function avroDecoder(settings: ServeSettings, env: Readonly<Record<string, string | undefined>>): ConfluentAvroDecoder {
  const url = env[settings.schemaRegistryUrlEnv];
  if (url === undefined || url.trim() === '') {
    throw new InvalidInputError(
      `thund serve: value format ${settings.valueFormat} needs a schema registry; set ${settings.schemaRegistryUrlEnv} to its URL (or name another variable with --schema-registry-url-env)`,
      { context: { variable: settings.schemaRegistryUrlEnv } },
    );
  }
  return new ConfluentAvroDecoder(schemaRegistryFromEnv(url, env, { usernameEnv: settings.schemaRegistryUsernameEnv, passwordEnv: settings.schemaRegistryPasswordEnv }));
}
