/**
 * A `format: kafka` sink's options as one flow publishes with them: the connector's own options
 * (connectors/kafka/sink-options.ts) plus what the engine adds for flows:
 *  - `checkpoint_topic`: where streaming (and once) flows keep their positions (default
 *    thund-checkpoints, created compacted when missing);
 *  - `thund.stream.max-files-per-batch` / `thund.stream.max-rows-per-batch`: micro-batch limits,
 *    as the table properties of the same names;
 *  - the transactional id of the flow's producer: `<transactional_id>.<flow>` or, without that
 *    option, `thund.<pipeline>.<flow>`, the same on every run, so a rerun fences a crashed one.
 */
import { z } from 'zod';
import { kafkaSinkOptions } from '../../../../connectors/kafka/sink-options.js';
import type { KafkaPublishOptions } from '../../../../connectors/kafka/publish.js';
import { InvalidInputError } from '../../../errors.js';
import type { SinkDataset } from '../../../pipeline/ir/dataset.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import { MAX_FILES_PER_BATCH_PROPERTY, MAX_ROWS_PER_BATCH_PROPERTY, batchLimits, type BatchLimits } from '../streaming/parquet-stream.js';

export const KAFKA_SINK_FORMAT = 'kafka';
export const DEFAULT_CHECKPOINT_TOPIC = 'thund-checkpoints';

export interface KafkaSinkSettings {
  /** Connector options; `transactionalId` is the flow's own. */
  readonly publish: KafkaPublishOptions & { readonly transactionalId: string };
  readonly checkpointTopic: string;
  readonly batchLimits: BatchLimits;
}

type Env = Readonly<Record<string, string | undefined>>;

const ENGINE_OPTIONS = z.object({
  checkpoint_topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name (letters, digits, ".", "_", "-")').optional(),
});
const ENGINE_KEYS = new Set(['checkpoint_topic', MAX_FILES_PER_BATCH_PROPERTY, MAX_ROWS_PER_BATCH_PROPERTY]);

export function kafkaSinkSettings(pipeline: string, flowName: string, sink: SinkDataset, env: Env = process.env): KafkaSinkSettings {
  if (sink.format.toLowerCase() !== KAFKA_SINK_FORMAT) {
    throw new InvalidInputError(`${formatOrigin(sink.origin)}: sink ${sink.name} has format ${sink.format}; the native engine publishes to format kafka sinks only`, {
      context: { sink: sink.name, format: sink.format },
    });
  }
  const connector: Record<string, string> = {};
  const engine: Record<string, string> = {};
  for (const [name, value] of Object.entries(sink.options)) (ENGINE_KEYS.has(name) ? engine : connector)[name] = value;
  const publish = kafkaSinkOptions(sink.name, connector, env);
  const parsed = ENGINE_OPTIONS.safeParse({ checkpoint_topic: engine['checkpoint_topic'] });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0] ?? '')}: ${issue.message}`);
    throw new InvalidInputError(`Kafka sink "${sink.name}": ${problems.join('; ')}`, { context: { sink: sink.name } });
  }
  const limits = batchLimits(engine, `${flowName} (sink ${sink.name})`);
  const base = publish.transactionalId ?? `thund.${pipeline}`;
  return {
    publish: { ...publish, transactionalId: `${base}.${flowName}` },
    checkpointTopic: parsed.data.checkpoint_topic ?? DEFAULT_CHECKPOINT_TOPIC,
    batchLimits: limits,
  };
}
