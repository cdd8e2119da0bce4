/**
 * The readiness probe of the Kafka brokers a served pipeline reads: every Kafka source's brokers
 * answer a metadata request within the timeout, one try each. The Kafka client is loaded on the
 * first probe, so a pipeline without Kafka sources never loads it.
 */
import { kafkaSources, type PipelineGraph } from '../../pipeline/ir/graph.js';

/** Undefined for a pipeline without Kafka sources. */
export function kafkaProbe(graph: PipelineGraph, env: Readonly<Record<string, string | undefined>>, timeoutMs: number): (() => Promise<void>) | undefined {
  const sources = kafkaSources(graph);
  if (sources.length === 0) return undefined;
  return async () => {
    const [{ pipelineKafkaSource }, { kafkaJsAnswers }] = await Promise.all([import('../../../connectors/kafka/pipeline-source-options.js'), import('../../../connectors/kafka/kafkajs-consumer.js')]);
    const clusters = new Map(
      sources.map((source) => {
        const { brokers, connection } = pipelineKafkaSource(source, env);
        return [brokers.join(','), { brokers, clientId: 'thund-readiness', ...(connection === undefined ? {} : { connection }) }] as const;
      }),
    );
    await Promise.all([...clusters.values()].map((cluster) => kafkaJsAnswers(cluster, timeoutMs)));
  };
}
