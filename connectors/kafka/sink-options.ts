/**
 * The options of a pipeline sink with `format: kafka` (all strings in the spec), validated:
 *
 *   sinks:
 *     alerts:
 *       format: kafka
 *       options:
 *         topic: alerts
 *         bootstrap_servers: ${THUND_KAFKA_BROKERS}   # or kafka.bootstrap.servers; default THUND_KAFKA_BROKERS
 *         key_columns: customer_id                    # comma-separated; optional
 *         header_columns: trace_id                    # comma-separated; sent as headers, not in the value
 *         header.source: thund                        # a fixed header
 *         transactional_id: alerts-publisher          # one Kafka transaction per run
 *         batch_records: "5000"
 *         batch_bytes: "524288"
 *         transaction_timeout_ms: "60000"
 *         client_id: thund-sink
 */
import { z } from 'zod';
import { InvalidInputError } from '../../src/errors.js';
import type { KafkaPublishOptions } from './publish.js';

const list = z
  .string()
  .transform((text) => text.split(',').map((s) => s.trim()).filter((s) => s !== ''));
const positiveInt = z.coerce.number().int().min(1);

const SinkOptionsSchema = z.strictObject({
  topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name (letters, digits, ".", "_", "-")'),
  bootstrap_servers: list.pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'brokers are host:port')).min(1, 'name at least one broker')),
  key_columns: list.optional(),
  header_columns: list.optional(),
  transactional_id: z.string().min(1).optional(),
  transaction_timeout_ms: positiveInt.optional(),
  batch_records: positiveInt.optional(),
  batch_bytes: positiveInt.optional(),
  client_id: z.string().min(1).optional(),
});

const HEADER_PREFIX = 'header.';

export function kafkaSinkOptions(sink: string, options: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>> = process.env): KafkaPublishOptions {
  const headers: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (name.startsWith(HEADER_PREFIX) && name.length > HEADER_PREFIX.length) headers[name.slice(HEADER_PREFIX.length)] = value;
    else rest[name === 'kafka.bootstrap.servers' ? 'bootstrap_servers' : name] = value;
  }
  const brokers = rest['bootstrap_servers'] ?? env['THUND_KAFKA_BROKERS'];
  if (brokers !== undefined) rest['bootstrap_servers'] = brokers;
  const parsed = SinkOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : String(issue.path[0] ?? '');
      const message = issue.code === 'invalid_type' && rest[field] === undefined ? (field === 'bootstrap_servers' ? 'is required (or set THUND_KAFKA_BROKERS)' : 'is required') : issue.message;
      return `${field}: ${message}`;
    });
    throw new InvalidInputError(`Kafka sink "${sink}": ${problems.join('; ')}`, { context: { sink } });
  }
  const o = parsed.data;
  return {
    topic: o.topic,
    brokers: o.bootstrap_servers,
    ...(o.key_columns === undefined ? {} : { keyColumns: o.key_columns }),
    ...(o.header_columns === undefined ? {} : { headerColumns: o.header_columns }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(o.transactional_id === undefined ? {} : { transactionalId: o.transactional_id }),
    ...(o.transaction_timeout_ms === undefined ? {} : { transactionTimeoutMs: o.transaction_timeout_ms }),
    ...(o.batch_records === undefined ? {} : { batchRecords: o.batch_records }),
    ...(o.batch_bytes === undefined ? {} : { batchBytes: o.batch_bytes }),
    ...(o.client_id === undefined ? {} : { clientId: o.client_id }),
  };
}
