/**
 * A pipeline's `format: kafka` source as the connector reads it: brokers, the value decoder and
 * the connection (TLS, SASL), from the source's fields and its `options` (all strings):
 *
 *   sources:
 *     customer_changes:
 *       format: kafka
 *       topic: shop.public.customers                 # or topics: [a, b]
 *       bootstrap_servers: ${THUND_KAFKA_BROKERS}    # default THUND_KAFKA_BROKERS
 *       value_format: debezium                       # json | avro | debezium | debezium-avro
 *       options:
 *         security_protocol: SASL_SSL                # PLAINTEXT (default) | SSL | SASL_PLAINTEXT | SASL_SSL
 *         sasl_mechanism: SCRAM-SHA-512              # PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512
 *         sasl_username_env: KAFKA_USER              # secrets only through environment variables
 *         sasl_password_env: KAFKA_PASSWORD
 *         ssl_ca_file: /etc/kafka/ca.pem             # extra CA certificates (PEM)
 *         schema_registry_url_env: THUND_KAFKA_SCHEMA_REGISTRY_URL   # avro formats
 *         schema_registry_username_env: …            # with schema_registry_password_env
 *         dead_letter_table: lake.orders_dead_letters  # default <flow's namespace>.<source>_dead_letters
 *         consumer_group: orders-landing             # processes serving the pipeline share the partitions
 *         session_timeout_ms: 30000                  # the group's session timeout (with consumer_group)
 *         client_id: orders-landing                  # the Kafka client id (default thund-<pipeline>.<flow>)
 *         debezium_op_column: _op                    # debezium formats: row images plus the op in this column
 *         read_ahead_bytes: 16777216                 # bytes fetched ahead of the batch being landed (default: what the last batch took, 16 MiB at least)
 *
 * With `debezium_op_column`, a Debezium source gives each change as its row image (the `after`
 * image; the `before` image for a delete) plus that column holding the op (c, r, u, d), as
 * append-only rows; without it, the envelope (op, before, after, source, ts_ms) that
 * apply_changes reads.
 *
 * With `consumer_group`, every process running the pipeline joins that Kafka consumer group and
 * reads only the partitions the group assigns it (rebalanced as processes come and go); without
 * it each process reads every partition. Either way a batch commits only while the table holds
 * the positions it read from, so no record lands twice. Only stateless flows may read a source
 * with a consumer group: a window or apply_changes keeps state one process must own.
 *
 * Dotted and camelCase option names (fetch.max.bytes, maxOffsetsPerTrigger, …) are Spark's and
 * Kafka's, passed on by `thund lower`; the native reader ignores them, except security settings
 * (security.protocol, sasl.*, ssl.*), which it refuses, naming its own options.
 *
 * Errors name the source and the option (and the variable), never a secret's value.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InvalidInputError } from '../../src/errors.js';
import type { SourceDataset } from '../../src/pipeline/ir/dataset.js';
import { ConfluentAvroDecoder } from './avro-decoder.js';
import { debeziumEnvelopeDecoder } from './debezium-envelope-decoder.js';
import { DebeziumRowDecoder } from './debezium-row-decoder.js';
import { JsonDecoder } from './json-decoder.js';
import { JsonSafeDecoder } from './json-safe-values.js';
import type { KafkaJsClientOptions } from './kafkajs-consumer.js';
import type { RecordDecoder } from './record-decoder.js';
import { SchemaRegistryClient, schemaRegistryOptionsFromEnv, type SchemaRegistryOptions } from './schema-registry-client.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface PipelineKafkaSource {
  readonly topics: readonly string[];
  readonly brokers: readonly string[];
  readonly connection?: KafkaJsClientOptions['connection'];
  readonly decoder: RecordDecoder<Record<string, unknown>>;
  /** Whether values are JSON objects the consumer may check as bytes (the staging fast path). */
  readonly checkJson: boolean;
  /** For Avro values (not Debezium's): the registry the consumer's worker reads writer schemas from to decode them into staged lines. */
  readonly avroRegistry?: SchemaRegistryOptions;
  /** For Debezium JSON values read as envelopes: the consumer's worker writes their staged lines. */
  readonly debeziumJson?: boolean;
  readonly deadLetterTable?: string;
  /** The Kafka consumer group whose members share the partitions; undefined: this reader takes every partition. */
  readonly consumerGroup?: string;
  readonly sessionTimeoutMs?: number;
  readonly clientId?: string;
  /**
   * Bytes fetched ahead of the reads, over all partitions (read_ahead_bytes). Undefined: what the last
   * read took, at least DEFAULT_READ_AHEAD_BYTES (kafka-offset-stream.ts).
   */
  readonly readAheadBytes?: number;
}

export const DEFAULT_READ_AHEAD_BYTES = 16 * 1024 * 1024;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');
const OPTIONS = z.strictObject({
  security_protocol: z.enum(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'], { error: 'PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL' }).optional(),
  sasl_mechanism: z.enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], { error: 'PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' }).optional(),
  sasl_username_env: envName.optional(),
  sasl_password_env: envName.optional(),
  ssl_ca_file: z.string().min(1).optional(),
  schema_registry_url_env: envName.optional(),
  schema_registry_username_env: envName.optional(),
  schema_registry_password_env: envName.optional(),
  dead_letter_table: z.string().regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/, 'a table name with its namespace (ns.table)').optional(),
  consumer_group: z.string().regex(/^[A-Za-z0-9._-]{1,255}$/, 'a consumer group id (letters, digits, ".", "_", "-")').optional(),
  session_timeout_ms: z.coerce.number().int().min(6_000, 'at least 6000').max(300_000, 'at most 300000').optional(),
  client_id: z.string().regex(/^[A-Za-z0-9._-]{1,255}$/, 'a client id (letters, digits, ".", "_", "-")').optional(),
  debezium_op_column: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a column name').optional(),
  read_ahead_bytes: z.coerce.number().int().min(1024 * 1024, 'at least 1048576 (1 MiB)').max(1024 ** 3, 'at most 1073741824 (1 GiB)').optional(),
});
type Options = z.infer<typeof OPTIONS>;

export function pipelineKafkaSource(source: SourceDataset, env: Env = process.env): PipelineKafkaSource {
  if (source.source.format !== 'kafka') throw new InvalidInputError(`source ${source.name} is not a Kafka source`);
  const kafka = source.source;
  const fail = (message: string, option?: string): never => {
    throw new InvalidInputError(`Kafka source "${source.name}": ${message}`, { context: { source: source.name, ...(option === undefined ? {} : { option }) } });
  };
  // Dotted and camelCase names are Spark's and Kafka's own options (for `thund lower`); the native reader takes only the brokers from them.
  const own = Object.fromEntries(Object.entries(kafka.options).filter(([name]) => !isSparkOption(name)));
  // A security setting the native reader would not apply must not pass silently.
  const security = Object.keys(kafka.options).find((name) => /^(kafka\.)?(security\.protocol|sasl\.|ssl\.)/.test(name));
  if (security !== undefined) {
    fail(`option ${security} is a Kafka client setting the native reader does not take; use security_protocol, sasl_mechanism, sasl_username_env, sasl_password_env or ssl_ca_file`, security);
  }
  const parsed = OPTIONS.safeParse(own);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : String(issue?.path[0] ?? '');
    fail(issue?.code === 'unrecognized_keys' ? `unknown option ${option}` : `option ${option}: ${issue?.message ?? 'invalid'}`, option);
  }
  const options = parsed.data as Options;
  const brokerList = kafka.bootstrapServers ?? kafka.options['kafka.bootstrap.servers'] ?? kafka.options['bootstrap.servers'] ?? env['THUND_KAFKA_BROKERS'];
  if (brokerList === undefined || brokerList.trim() === '') fail('bootstrap_servers is required (or set THUND_KAFKA_BROKERS)', 'bootstrap_servers');
  const brokers = (brokerList as string).split(',').map((b) => b.trim()).filter((b) => b !== '');
  const bad = brokers.find((b) => !/^[^\s:]+:\d{1,5}$/.test(b));
  if (bad !== undefined) fail(`bootstrap_servers: "${bad}" is not host:port`, 'bootstrap_servers');
  const connection = connectionOf(options, env, fail);
  const registry = kafka.valueFormat === 'avro' || kafka.valueFormat === 'debezium-avro' ? registryOf(options, env, fail) : undefined;
  const decoder = decoderOf(kafka.valueFormat, options, registry, fail);
  return {
    topics: kafka.topics,
    brokers,
    ...(connection === undefined ? {} : { connection }),
    decoder,
    checkJson: kafka.valueFormat === 'json',
    ...(kafka.valueFormat === 'avro' && registry !== undefined ? { avroRegistry: registry } : {}),
    ...(kafka.valueFormat === 'debezium' && options.debezium_op_column === undefined ? { debeziumJson: true } : {}),
    ...(options.dead_letter_table === undefined ? {} : { deadLetterTable: options.dead_letter_table }),
    ...(options.consumer_group === undefined ? {} : { consumerGroup: options.consumer_group }),
    ...(options.session_timeout_ms === undefined ? {} : { sessionTimeoutMs: options.session_timeout_ms }),
    ...(options.client_id === undefined ? {} : { clientId: options.client_id }),
    ...(options.read_ahead_bytes === undefined ? {} : { readAheadBytes: options.read_ahead_bytes }),
  };
}

type Fail = (message: string, option?: string) => never;

const isSparkOption = (name: string): boolean => name.includes('.') || /^[a-z]+[A-Z]/.test(name);

function connectionOf(options: Options, env: Env, fail: Fail): KafkaJsClientOptions['connection'] {
  const protocol = options.security_protocol ?? (options.sasl_mechanism === undefined ? 'PLAINTEXT' : 'SASL_PLAINTEXT');
  const tls = protocol === 'SSL' || protocol === 'SASL_SSL';
  const sasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';
  if (!tls && options.ssl_ca_file !== undefined) fail(`ssl_ca_file needs security_protocol SSL or SASL_SSL (it is ${protocol})`, 'ssl_ca_file');
  if (!sasl && (options.sasl_mechanism ?? options.sasl_username_env ?? options.sasl_password_env) !== undefined) {
    fail(`SASL options need security_protocol SASL_PLAINTEXT or SASL_SSL (it is ${protocol})`, 'security_protocol');
  }
  let ssl: boolean | { ca: string[] } | undefined;
  if (tls) {
    if (options.ssl_ca_file === undefined) ssl = true;
    else {
      try {
        ssl = { ca: [readFileSync(options.ssl_ca_file, 'utf8')] };
      } catch (error) {
        fail(`ssl_ca_file ${options.ssl_ca_file} cannot be read (${error instanceof Error ? error.message : String(error)})`, 'ssl_ca_file');
      }
    }
  }
  if (!sasl) return ssl === undefined ? undefined : { ssl };
  const mechanism = options.sasl_mechanism ?? fail('sasl_mechanism is required with SASL', 'sasl_mechanism');
  const secret = (option: 'sasl_username_env' | 'sasl_password_env'): string => {
    const name = options[option] ?? fail(`${option} is required with SASL (the name of the environment variable holding it)`, option);
    const value = env[name];
    return value === undefined || value === '' ? fail(`${option}: environment variable ${name} is not set`, option) : value;
  };
  const username = secret('sasl_username_env');
  const password = secret('sasl_password_env');
  const credentials =
    mechanism === 'PLAIN'
      ? { mechanism: 'plain' as const, username, password }
      : mechanism === 'SCRAM-SHA-256'
        ? { mechanism: 'scram-sha-256' as const, username, password }
        : { mechanism: 'scram-sha-512' as const, username, password };
  return { ...(ssl === undefined ? {} : { ssl }), sasl: credentials };
}

function decoderOf(format: string, options: Options, registry: SchemaRegistryOptions | undefined, fail: Fail): RecordDecoder<Record<string, unknown>> {
  const opColumn = options.debezium_op_column;
  if (opColumn !== undefined && format !== 'debezium' && format !== 'debezium-avro') fail(`debezium_op_column needs value_format debezium or debezium-avro (it is ${format})`, 'debezium_op_column');
  const changes = (inner: RecordDecoder<Record<string, unknown>>): RecordDecoder<Record<string, unknown>> =>
    opColumn === undefined ? debeziumEnvelopeDecoder(inner) : new DebeziumRowDecoder(inner, opColumn);
  const avro = (): ConfluentAvroDecoder => new ConfluentAvroDecoder(new SchemaRegistryClient(registry as SchemaRegistryOptions));
  switch (format) {
    case 'json':
      return new JsonDecoder();
    case 'debezium':
      return changes(new JsonDecoder({ alwaysParse: opColumn === undefined }));
    case 'avro':
      return new JsonSafeDecoder(avro());
    case 'debezium-avro':
      return new JsonSafeDecoder(changes(avro()));
    default:
      return fail(`value_format ${format} is not json, avro, debezium or debezium-avro`, 'value_format');
  }
}

function registryOf(options: Options, env: Env, fail: Fail): SchemaRegistryOptions {
  const variable = options.schema_registry_url_env ?? 'THUND_KAFKA_SCHEMA_REGISTRY_URL';
  const url = env[variable];
  if (url === undefined || url.trim() === '') fail(`Avro values need a schema registry: set ${variable} to its URL (or name another variable with schema_registry_url_env)`, 'schema_registry_url_env');
  return schemaRegistryOptionsFromEnv(url as string, env, {
    usernameEnv: options.schema_registry_username_env ?? 'THUND_SCHEMA_REGISTRY_USERNAME',
    passwordEnv: options.schema_registry_password_env ?? 'THUND_SCHEMA_REGISTRY_PASSWORD',
  });
}
