/**
 * The OffsetStreamConnector for a pipeline's `format: kafka` sources. The Kafka client (kafkajs,
 * its worker) is loaded when the first Kafka source opens, so a run without one never loads it.
 */
import type { OffsetStreamConnector } from '../source.js';
import type { KafkaOffsetStreamOptions } from './kafka-offset-stream.js';

/** Opens Kafka offset streams for a pipeline's `format: kafka` sources. */
export function kafkaOffsetStreams(
  env: Readonly<Record<string, string | undefined>> = process.env,
  observers: Pick<KafkaOffsetStreamOptions, 'onAssignment' | 'onGroupWait'> = {},
): OffsetStreamConnector {
  return {
    open: async (source, reader) => {
      const [{ KafkaOffsetStream }, { pipelineKafkaSource }] = await Promise.all([import('./kafka-offset-stream.js'), import('./pipeline-source-options.js')]);
      return new KafkaOffsetStream({ settings: pipelineKafkaSource(source, env), reader, ...observers });
    },
  };
}
